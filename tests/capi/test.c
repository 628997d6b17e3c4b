/* The C API from C: translate a container, read words and reflection, free; an input error
 * and a usage error. Built and run by `cargo xtask test` against libdxbc2spirv.so:
 *   test DXBC_FILE   (a compute shader container) */
#include "dxbc2spirv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAIL: %s (last error: %s)\n", what, dxbc2spirv_last_error());
        failures++;
    }
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
    *size = bytes ? fread(bytes, 1, (size_t)n, f) : 0;
    fclose(f);
    return bytes;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SHADER.dxbc\n", argv[0]);
        return 2;
    }
    size_t size = 0;
    unsigned char *bytes = read_file(argv[1], &size);
    if (!bytes) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 2;
    }

    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    check(options.target_vulkan == 13, "default target is Vulkan 1.3");

    Dxbc2spirvResult *result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK && result != NULL, "translate succeeds");
    if (result) {
        size_t count = 0;
        const uint32_t *words = dxbc2spirv_result_words(result, &count);
        check(count > 5 && words[0] == 0x07230203u, "SPIR-V magic");
        const char *json = dxbc2spirv_result_reflection_json(result);
        check(json && strstr(json, "\"descriptor_ranges\"") != NULL, "reflection JSON");
        printf("translated %s: %zu words, reflection %zu bytes\n", argv[1], count, strlen(json));
        dxbc2spirv_result_free(result);
    }

    /* A binding map moves every UAV to set 2. */
    options.bindings_json =
        "{\"ranges\":[{\"class\":\"uav\",\"space\":0,\"first\":0,\"last\":null,"
        "\"set\":2,\"binding\":0}]}";
    status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK, "translate with a binding map");
    if (result) {
        check(strstr(dxbc2spirv_result_reflection_json(result), "\"set\":2") != NULL,
              "the map's set is in the reflection");
        dxbc2spirv_result_free(result);
    }
    options.bindings_json = NULL;

    /* A damaged container: an input error with a message. */
    bytes[size / 2] ^= 0xff;
    status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_ERROR_INPUT && result == NULL, "damaged input fails");
    check(strlen(dxbc2spirv_last_error()) > 0, "an error message");
    printf("damaged input: %s\n", dxbc2spirv_last_error());

    /* Bad arguments. */
    options.target_vulkan = 9;
    status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE, "bad target is a usage error");
    status = dxbc2spirv_translate(bytes, size, NULL, NULL);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE, "null out pointer is a usage error");
    dxbc2spirv_result_free(NULL);

    /* A translator keeps its memory from one translation for the next; its modules are the
       one-call translation's. */
    bytes[size / 2] ^= 0xff; /* undamaged again */
    dxbc2spirv_options_default(&options);
    status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK, "one-call translation");
    Dxbc2spirvTranslator *translator = dxbc2spirv_translator_new();
    for (int round = 0; round < 3 && result; round++) {
        Dxbc2spirvResult *again = NULL;
        status = dxbc2spirv_translator_translate(translator, bytes, size, &options, &again);
        check(status == DXBC2SPIRV_STATUS_OK, "translator translation");
        if (again) {
            size_t n1, n2;
            const uint32_t *w1 = dxbc2spirv_result_words(result, &n1);
            const uint32_t *w2 = dxbc2spirv_result_words(again, &n2);
            check(n1 == n2 && memcmp(w1, w2, n1 * 4) == 0, "the translator's module is the same");
            dxbc2spirv_result_free(again);
        }
    }
    Dxbc2spirvResult *unused = NULL;
    status = dxbc2spirv_translator_translate(NULL, bytes, size, &options, &unused);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE, "a null translator is a usage error");
    dxbc2spirv_translator_free(translator);
    dxbc2spirv_translator_free(NULL);
    dxbc2spirv_result_free(result);

    free(bytes);
    if (failures) {
        fprintf(stderr, "%d C API check(s) failed\n", failures);
        return 1;
    }
    printf("C API: all checks passed\n");
    return 0;
}
