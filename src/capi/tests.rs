//! The C API called from Rust: success, input errors and usage errors.

use super::*;

const SHADER: &str = "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\n\
                      store_raw u0.x, l(0), l(7)\nret\n";

fn last_error() -> String {
    // SAFETY: the pointer is a live NUL-terminated string of this thread.
    unsafe { CStr::from_ptr(dxbc2spirv_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn translate_read_and_free() {
    let bytes = crate::asm::assemble(SHADER).expect("assembles");
    let mut options = std::mem::MaybeUninit::<Dxbc2spirvOptions>::uninit();
    // SAFETY: a writable options struct, then a live buffer and out pointer.
    unsafe {
        dxbc2spirv_options_default(options.as_mut_ptr());
        let options = options.assume_init();
        let mut result = std::ptr::null_mut();
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        let mut count = 0;
        let words = dxbc2spirv_result_words(result, &mut count);
        assert!(count > 5);
        assert_eq!(*words, 0x0723_0203);
        let json = CStr::from_ptr(dxbc2spirv_result_reflection_json(result)).to_string_lossy();
        assert!(json.contains("\"thread_group_size\":[1,1,1]"), "{json}");
        dxbc2spirv_result_free(result);
    }
}

#[test]
fn errors_set_the_message() {
    let mut result = std::ptr::null_mut();
    let junk = b"DXBC junk";
    // SAFETY: live buffers and out pointer.
    let status =
        unsafe { dxbc2spirv_translate(junk.as_ptr(), junk.len(), std::ptr::null(), &mut result) };
    assert_eq!(status, Dxbc2spirvStatus::ErrorInput);
    assert!(result.is_null());
    assert!(!last_error().is_empty());
    // SAFETY: a null out pointer is detected.
    let status = unsafe {
        dxbc2spirv_translate(
            junk.as_ptr(),
            junk.len(),
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
    let options = Dxbc2spirvOptions {
        target_vulkan: 10,
        debug_names: 0,
        ignore_checksum: 0,
        validate: 0,
        float64: 1,
        denorm_preserve_float64: 0,
        sparse_residency: 1,
        min_lod: 1,
        float16: 0,
        int16: 0,
        native_16bit: 0,
        bindings_json: std::ptr::null(),
        stream_output_json: std::ptr::null(),
    };
    // SAFETY: live buffers and out pointer.
    let status = unsafe { dxbc2spirv_translate(junk.as_ptr(), junk.len(), &options, &mut result) };
    assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
    assert!(last_error().contains("target_vulkan"), "{}", last_error());
}
