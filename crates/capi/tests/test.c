/* The C API from C: translate a container, read words and reflection, free; an input error
 * and a usage error; the scan-only call's reflection structs; the API version check; linking
 * a vertex and a pixel shader by semantic at the layer's locations; constant buffers in push
 * constants; a warning. `cargo xtask c-library` (a step of `cargo xtask test`) installs the library into
 * a temporary prefix and builds this against the installation with Meson (meson.build here)
 * and with `cc $(pkg-config --cflags --libs dxbc2spirv)`, shared and static, then runs
 *   test STORE_RAW.dxbc CS_RANGES.dxbc GS_PARAMS.dxbc LINK_VS.dxbc LINK_PS.dxbc PUSH_PS.dxbc
 *        DEEP_GROUP.dxbc
 * (shaders/seeds/store_raw.shader_test, tests/in/reflect/cs_ranges.asm and gs_params.asm,
 * the two shaders of shaders/layer/link_by_semantic.shader_test, the pixel shader of
 * shaders/layer/push_constants.shader_test and shaders/misc/cs_4_0_deep_thread_group.shader_test,
 * assembled) */
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

static int equal_text(const char *actual, const char *expected) {
    return actual && strcmp(actual, expected) == 0;
}

/* Checks one number, printing both values when they differ. */
static void check_u32(uint32_t actual, uint32_t expected, const char *what) {
    if (actual != expected) {
        fprintf(stderr, "FAIL: %s: %u, expected %u\n", what, actual, expected);
        failures++;
    }
}

/* The scan-only call on tests/in/reflect/cs_ranges.asm with the default layout: no module,
 * the descriptor ranges and the thread-group size as structs (the values of `dxbc2spirv
 * reflect --json`). */
static void check_scan(const unsigned char *bytes, size_t size) {
    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    Dxbc2spirvResult *result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_scan(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK && result != NULL, "scan succeeds");
    if (!result) return;
    size_t words = 99;
    dxbc2spirv_result_words(result, &words);
    check(words == 0, "a scan makes no module");
    const char *json = dxbc2spirv_result_reflection_json(result);
    check(json && strstr(json, "\"thread_group_size\":[8,4,1]") != NULL, "scan's JSON");

    size_t count = dxbc2spirv_reflection_descriptor_count(result);
    check_u32((uint32_t)count, 6, "cs_ranges descriptor ranges");
    Dxbc2spirvDescriptorRange r[6];
    for (size_t i = 0; i < count && i < 6; i++) {
        status = dxbc2spirv_reflection_descriptor(result, i, &r[i]);
        check(status == DXBC2SPIRV_STATUS_OK, "descriptor range copied");
    }
    if (count == 6) {
        /* cb0[2:4][4]: a uniform-buffer array of 3 at binding 2. */
        check(r[0].descriptor_class == DXBC2SPIRV_DESCRIPTOR_CLASS_CONSTANT_BUFFER, "cb0 class");
        check_u32(r[0].vk_descriptor_type, 6, "cb0 VkDescriptorType");
        check_u32(r[0].binding, 2, "cb0 binding");
        check_u32(r[0].descriptor_count, 3, "cb0 descriptors");
        check_u32(r[0].cbuffer_size, 4, "cb0 vectors");
        /* t0[8:11] of space 2: raw buffers, set 2 binding 40. */
        check(r[1].descriptor_class == DXBC2SPIRV_DESCRIPTOR_CLASS_SHADER_RESOURCE, "t0 class");
        check_u32(r[1].space, 2, "t0 space");
        check_u32(r[1].lower_bound, 8, "t0 lower bound");
        check_u32(r[1].register_count, 4, "t0 registers");
        check_u32(r[1].set, 2, "t0 set");
        check_u32(r[1].binding, 40, "t0 binding");
        check_u32(r[1].vk_descriptor_type, 7, "t0 VkDescriptorType");
        check(equal_text(r[1].dimension, "raw_buffer"), "t0 dimension");
        /* t1[4:*]: an unbounded range, a runtime array. */
        check_u32(r[2].register_count, 0, "t1 unbounded");
        check_u32(r[2].descriptor_count, 0, "t1 runtime array");
        check_u32(r[2].stride, 16, "t1 stride");
        check_u32(r[2].binding, 36, "t1 binding");
        /* u1[4:5] with its counter used. */
        check(r[4].descriptor_class == DXBC2SPIRV_DESCRIPTOR_CLASS_UNORDERED_ACCESS, "u1 class");
        check_u32(r[4].binding, 164, "u1 binding");
        check_u32(r[4].uav_counter, 1, "u1 counter used");
        check_u32(r[4].counter_binding, 228, "u1 counter binding");
        /* u2[6:7]: a storage image read and used atomically. */
        check_u32(r[5].vk_descriptor_type, 3, "u2 VkDescriptorType");
        check(equal_text(r[5].dimension, "texture2d"), "u2 dimension");
        check(r[5].uav_read && r[5].uav_atomic && !r[5].uav_counter, "u2 usage");
    }
    Dxbc2spirvDescriptorRange spare;
    status = dxbc2spirv_reflection_descriptor(result, count, &spare);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE, "a range index out of range is refused");

    Dxbc2spirvStageParameters stage;
    status = dxbc2spirv_reflection_stage(result, &stage);
    check(status == DXBC2SPIRV_STATUS_OK, "stage parameters copied");
    if (status == DXBC2SPIRV_STATUS_OK) {
        check(equal_text(stage.model, "cs_5_1"), "model cs_5_1");
        check_u32(stage.thread_group_size[0], 8, "thread group x");
        check_u32(stage.thread_group_size[1], 4, "thread group y");
        check_u32(stage.thread_group_size[2], 1, "thread group z");
        check(stage.domain == NULL && stage.input_primitive == NULL, "no stage parameters");
    }
    check(dxbc2spirv_reflection_signature_count(result, DXBC2SPIRV_SIGNATURE_KIND_INPUT) == 0,
          "no input signature elements");
    printf("scan: %zu descriptor ranges, thread group %u,%u,%u\n", count,
           stage.thread_group_size[0], stage.thread_group_size[1], stage.thread_group_size[2]);
    dxbc2spirv_result_free(result);
}

/* A translated geometry shader's signatures and geometry parameters as structs
 * (tests/in/reflect/gs_params.asm: SV_Position in and out, triangles in, 3 vertices out). */
static void check_signatures(const unsigned char *bytes, size_t size) {
    Dxbc2spirvResult *result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_translate(bytes, size, NULL, &result);
    check(status == DXBC2SPIRV_STATUS_OK && result != NULL, "gs translates");
    if (!result) return;
    const uint32_t kinds[2] = {DXBC2SPIRV_SIGNATURE_KIND_INPUT, DXBC2SPIRV_SIGNATURE_KIND_OUTPUT};
    for (int k = 0; k < 2; k++) {
        check_u32((uint32_t)dxbc2spirv_reflection_signature_count(result, kinds[k]), 1,
                  "gs signature elements");
        Dxbc2spirvSignatureElement e;
        status = dxbc2spirv_reflection_signature_element(result, kinds[k], 0, &e);
        check(status == DXBC2SPIRV_STATUS_OK, "signature element copied");
        if (status != DXBC2SPIRV_STATUS_OK) continue;
        check(equal_text(e.semantic_name, "SV_Position"), "semantic SV_Position");
        check_u32(e.semantic_index, 0, "semantic index");
        check_u32(e.register_index, 0, "register");
        check_u32(e.mask, 0xf, "mask");
        check_u32(e.system_value, 1, "system value (D3D_NAME_POSITION)");
        check_u32(e.component_type, 3, "component type (float)");
    }
    Dxbc2spirvSignatureElement spare;
    status = dxbc2spirv_reflection_signature_element(result, 9, 0, &spare);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE, "an unknown signature kind is refused");
    Dxbc2spirvStageParameters stage;
    status = dxbc2spirv_reflection_stage(result, &stage);
    check(status == DXBC2SPIRV_STATUS_OK, "gs stage parameters copied");
    if (status == DXBC2SPIRV_STATUS_OK) {
        check(equal_text(stage.input_primitive, "triangle"), "input primitive");
        check(equal_text(stage.output_topology, "trianglestrip"), "output topology");
        check_u32(stage.max_output_vertices, 3, "max output vertices");
    }
    dxbc2spirv_result_free(result);
}

/* The library's versions, and options of another API version refused by both calls. */
static void check_versions(const unsigned char *bytes, size_t size) {
    check(dxbc2spirv_api_version() == DXBC2SPIRV_API_VERSION, "library and header agree");
    const char *version = dxbc2spirv_version();
    check(version && strchr(version, '.') != NULL, "a library version");
    printf("library %s, C API version %u\n", version, dxbc2spirv_api_version());
    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    check_u32(options.api_version, DXBC2SPIRV_API_VERSION, "default options' API version");
    const uint32_t wrong[2] = {DXBC2SPIRV_API_VERSION + 1, 0};
    for (int i = 0; i < 2; i++) {
        options.api_version = wrong[i];
        Dxbc2spirvResult *result = NULL;
        Dxbc2spirvStatus status = dxbc2spirv_translate(bytes, size, &options, &result);
        check(status == DXBC2SPIRV_STATUS_ERROR_USAGE && result == NULL,
              "translate refuses another API version");
        check(strstr(dxbc2spirv_last_error(), "api_version") != NULL, "the message names it");
        status = dxbc2spirv_scan(bytes, size, &options, &result);
        check(status == DXBC2SPIRV_STATUS_ERROR_USAGE && result == NULL,
              "scan refuses another API version");
    }
    printf("api_version %u refused: %s\n", wrong[1], dxbc2spirv_last_error());
}

/* The element of signature `kind` with this semantic, copied to `*out`; 0 when absent. */
static int find_element(const Dxbc2spirvResult *result, uint32_t kind, const char *name,
                        uint32_t index, Dxbc2spirvSignatureElement *out) {
    size_t count = dxbc2spirv_reflection_signature_count(result, kind);
    for (size_t i = 0; i < count; i++) {
        if (dxbc2spirv_reflection_signature_element(result, kind, i, out) ==
                DXBC2SPIRV_STATUS_OK &&
            equal_text(out->semantic_name, name) && out->semantic_index == index)
            return 1;
    }
    fprintf(stderr, "FAIL: no element %s%u in signature %u\n", name, index, kind);
    failures++;
    return 0;
}

/* Checks where an element sits. */
static void check_place(const Dxbc2spirvResult *result, uint32_t kind, const char *name,
                        uint32_t index, uint32_t location, uint32_t component) {
    Dxbc2spirvSignatureElement e;
    if (!find_element(result, kind, name, index, &e)) return;
    char what[96];
    snprintf(what, sizeof what, "%s%u location (signature %u)", name, index, kind);
    check_u32(e.location, location, what);
    snprintf(what, sizeof what, "%s%u component (signature %u)", name, index, kind);
    check_u32(e.component, component, what);
}

/* The vertex shader writes TEXCOORD1 to o1.xy, TEXCOORD0 to o2.zw and COLOR0 to o3; the pixel
 * shader reads COLOR0 from v1 and both texture coordinates from v2. The layer puts the
 * vertex shader's outputs where it wants them; the pixel shader's inputs follow by
 * semantic through the map the vertex shader's result gives. */
static void check_linking(const unsigned char *vs, size_t vs_size, const unsigned char *ps,
                          size_t ps_size) {
    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    options.interface_json =
        "{\"outputs\": [{\"semantic\": \"TEXCOORD\", \"index\": 0, \"location\": 3, \"component\": 0},"
        " {\"semantic\": \"TEXCOORD\", \"index\": 1, \"location\": 3, \"component\": 2},"
        " {\"semantic\": \"COLOR\", \"index\": 0, \"location\": 0}]}";
    Dxbc2spirvResult *vs_result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_translate(vs, vs_size, &options, &vs_result);
    check(status == DXBC2SPIRV_STATUS_OK && vs_result != NULL, "the vertex shader translates");
    if (!vs_result) return;
    const uint32_t out = DXBC2SPIRV_SIGNATURE_KIND_OUTPUT, in = DXBC2SPIRV_SIGNATURE_KIND_INPUT;
    check_place(vs_result, out, "SV_Position", 0, UINT32_MAX, 0);
    check_place(vs_result, out, "TEXCOORD", 0, 3, 0);
    check_place(vs_result, out, "TEXCOORD", 1, 3, 2);
    check_place(vs_result, out, "COLOR", 0, 0, 0);

    const char *link = dxbc2spirv_result_next_stage_interface_json(vs_result);
    check(link && strstr(link, "\"inputs\"") != NULL, "the next stage's map");
    printf("next stage's interface map: %s\n", link ? link : "(null)");
    options.interface_json = link;
    Dxbc2spirvResult *ps_result = NULL;
    status = dxbc2spirv_translate(ps, ps_size, &options, &ps_result);
    check(status == DXBC2SPIRV_STATUS_OK && ps_result != NULL, "the linked pixel shader");
    if (ps_result) {
        check_place(ps_result, in, "COLOR", 0, 0, 0);
        check_place(ps_result, in, "TEXCOORD", 0, 3, 0);
        check_place(ps_result, in, "TEXCOORD", 1, 3, 2);
        check_place(ps_result, in, "SV_Position", 0, UINT32_MAX, 0);
        dxbc2spirv_result_free(ps_result);
    }
    dxbc2spirv_result_free(vs_result);

    options.interface_json = "{\"outputs\": [{\"semantic\": \"COLOR\", \"place\": 1}]}";
    status = dxbc2spirv_translate(vs, vs_size, &options, &vs_result);
    check(status == DXBC2SPIRV_STATUS_ERROR_USAGE && vs_result == NULL, "a bad map is refused");
    check(strstr(dxbc2spirv_last_error(), "place") != NULL, "the message names the key");
}

/* cb2 (3 vectors) at byte 0 and cb5 at byte 48 in push constants; cb0 stays a uniform
 * buffer at the default binding. */
static void check_push_constants(const unsigned char *bytes, size_t size) {
    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    options.bindings_json =
        "{\"fallback_to_default\": true, \"ranges\": ["
        "{\"class\": \"cbv\", \"first\": 2, \"push_constant\": true, \"offset\": 0},"
        "{\"class\": \"cbv\", \"first\": 5, \"push_constant\": true, \"offset\": 48}]}";
    Dxbc2spirvResult *result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK && result != NULL, "push constants translate");
    if (!result) return;
    size_t count = dxbc2spirv_reflection_push_constant_count(result);
    check_u32((uint32_t)count, 2, "push-constant buffers");
    const uint32_t expected[2][4] = {{2, 0, 0, 48}, {5, 0, 48, 16}};
    for (size_t i = 0; i < count && i < 2; i++) {
        Dxbc2spirvPushConstant p;
        check(dxbc2spirv_reflection_push_constant(result, i, &p) == DXBC2SPIRV_STATUS_OK,
              "push constant copied");
        check_u32(p.register_index, expected[i][0], "push constant register");
        check_u32(p.space, expected[i][1], "push constant space");
        check_u32(p.offset, expected[i][2], "push constant offset");
        check_u32(p.size, expected[i][3], "push constant size");
    }
    Dxbc2spirvPushConstant p;
    check(dxbc2spirv_reflection_push_constant(result, 2, &p) == DXBC2SPIRV_STATUS_ERROR_USAGE,
          "push constant index out of range");
    check_u32((uint32_t)dxbc2spirv_reflection_descriptor_count(result), 1,
              "only cb0 is a descriptor");
    dxbc2spirv_result_free(result);
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

/* A cs_4_0 shader whose thread group (16 x 8 x 4) is past Direct3D 11's cs_4_x limit: it
 * translates, with one warning naming the limit; a module without warnings has none. */
static void check_warnings(const char *path) {
    size_t size = 0;
    unsigned char *bytes = read_file(path, &size);
    check(bytes != NULL, "the cs_4_0 shader reads");
    if (!bytes) return;
    Dxbc2spirvOptions options;
    dxbc2spirv_options_default(&options);
    Dxbc2spirvResult *result = NULL;
    Dxbc2spirvStatus status = dxbc2spirv_translate(bytes, size, &options, &result);
    check(status == DXBC2SPIRV_STATUS_OK && result != NULL, "a deep cs_4_0 thread group translates");
    check_u32((uint32_t)dxbc2spirv_result_warning_count(result), 1, "warnings of the cs_4_0 shader");
    const char *warning = dxbc2spirv_result_warning(result, 0);
    check(warning && strstr(warning, "D3D11_CS_4_X_THREAD_GROUP_MAX_*") != NULL,
          "the warning names the limit");
    check(dxbc2spirv_result_warning(result, 1) == NULL, "no warning past the count");
    if (warning) printf("warning: %s\n", warning);
    dxbc2spirv_result_free(result);
    check(dxbc2spirv_result_warning_count(NULL) == 0, "a null result has no warnings");
    free(bytes);
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr,
                "usage: %s STORE_RAW.dxbc CS_RANGES.dxbc GS_PARAMS.dxbc LINK_VS.dxbc "
                "LINK_PS.dxbc PUSH_PS.dxbc DEEP_GROUP.dxbc\n",
                argv[0]);
        return 2;
    }
    size_t size = 0;
    unsigned char *bytes = read_file(argv[1], &size);
    size_t ranges_size = 0;
    unsigned char *ranges = read_file(argv[2], &ranges_size);
    size_t gs_size = 0;
    unsigned char *gs = read_file(argv[3], &gs_size);
    if (!bytes || !ranges || !gs) {
        fprintf(stderr, "%s, %s or %s: cannot read\n", argv[1], argv[2], argv[3]);
        return 2;
    }
    size_t vs_size = 0, ps_size = 0, push_size = 0;
    unsigned char *vs = read_file(argv[4], &vs_size);
    unsigned char *ps = read_file(argv[5], &ps_size);
    unsigned char *push = read_file(argv[6], &push_size);
    if (!vs || !ps || !push) {
        fprintf(stderr, "%s, %s or %s: cannot read\n", argv[4], argv[5], argv[6]);
        return 2;
    }
    check_scan(ranges, ranges_size);
    check_signatures(gs, gs_size);
    check_linking(vs, vs_size, ps, ps_size);
    check_push_constants(push, push_size);
    free(vs);
    free(ps);
    free(push);
    check_versions(bytes, size);
    free(ranges);
    free(gs);

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

    check_warnings(argv[7]);
    free(bytes);
    if (failures) {
        fprintf(stderr, "%d C API check(s) failed\n", failures);
        return 1;
    }
    printf("C API: all checks passed\n");
    return 0;
}
