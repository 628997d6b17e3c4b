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
        shader_clock: 0,
        no_optimize: 0,
        bindings_json: std::ptr::null(),
        stream_output_json: std::ptr::null(),
    };
    // SAFETY: live buffers and out pointer.
    let status = unsafe { dxbc2spirv_translate(junk.as_ptr(), junk.len(), &options, &mut result) };
    assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
    assert!(last_error().contains("target_vulkan"), "{}", last_error());
}

#[test]
fn a_stream_output_layout_reaches_the_module() {
    let text = include_str!("../../tests/in/gs_stream_output.asm");
    let layout = CString::new(include_str!("../../tests/in/gs_stream_output.json")).expect("text");
    let bytes = crate::asm::assemble(text).expect("assembles");
    let mut options = std::mem::MaybeUninit::<Dxbc2spirvOptions>::uninit();
    // SAFETY: a writable options struct, then live buffers, strings and out pointer.
    unsafe {
        dxbc2spirv_options_default(options.as_mut_ptr());
        let mut options = options.assume_init();
        options.stream_output_json = layout.as_ptr();
        let mut result = std::ptr::null_mut();
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{text}\n{}", last_error());
        let mut count = 0;
        let words = std::slice::from_raw_parts(dxbc2spirv_result_words(result, &mut count), count);
        // OpCapability TransformFeedback: (2 << 16 | 17), 53.
        let capability = words.windows(2).any(|w| w == [0x0002_0011, 53]);
        assert!(capability, "{text}\nno OpCapability TransformFeedback");
        dxbc2spirv_result_free(result);
        let bad =
            CString::new(r#"{"entries": [{"semantic": "NORMAL", "count": 3}]}"#).expect("text");
        options.stream_output_json = bad.as_ptr();
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::ErrorInput, "{text}");
        assert!(
            last_error().contains("entry 0 (stream 0 NORMAL0)"),
            "{text}\nexpected the entry in the error, got {}",
            last_error()
        );
    }
}

#[test]
fn shader_clock_is_off_by_default_and_turns_the_cycle_counter_on() {
    let bytes = crate::asm::assemble(
        "cs_5_0\ndcl_uav_raw u0\ndcl_input vCycleCounter\ndcl_thread_group 1, 1, 1\n\
         store_raw u0.xy, l(0), vCycleCounter.xyxx\nret\n",
    )
    .expect("assembles");
    let mut options = std::mem::MaybeUninit::<Dxbc2spirvOptions>::uninit();
    // SAFETY: a writable options struct, then live buffers and out pointers.
    unsafe {
        dxbc2spirv_options_default(options.as_mut_ptr());
        let mut options = options.assume_init();
        assert_eq!(options.shader_clock, 0, "the Rust default is off too");
        let mut result = std::ptr::null_mut();
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_ne!(status, Dxbc2spirvStatus::Ok);
        assert!(
            last_error().contains("shaderSubgroupClock"),
            "{}",
            last_error()
        );
        options.shader_clock = 1;
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        dxbc2spirv_result_free(result);
    }
}
