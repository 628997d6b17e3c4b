//! The C API called from Rust: success, input errors and usage errors.

use super::reflection::*;
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
    let bytes = translator::asm::assemble(SHADER).expect("assembles");
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
        api_version: DXBC2SPIRV_API_VERSION,
        target_vulkan: 10,
        debug_names: 0,
        ignore_checksum: 0,
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
        interface_json: std::ptr::null(),
        dual_source_blending: 0,
    };
    // SAFETY: live buffers and out pointer.
    let status = unsafe { dxbc2spirv_translate(junk.as_ptr(), junk.len(), &options, &mut result) };
    assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
    assert!(last_error().contains("target_vulkan"), "{}", last_error());
}

#[test]
fn a_stream_output_layout_reaches_the_module() {
    let text = include_str!("../../../tests/in/gs_stream_output.asm");
    let layout =
        CString::new(include_str!("../../../tests/in/gs_stream_output.json")).expect("text");
    let bytes = translator::asm::assemble(text).expect("assembles");
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
    let bytes = translator::asm::assemble(
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

/// The options of the current API version, for the tests below.
fn default_options() -> Dxbc2spirvOptions {
    let mut options = std::mem::MaybeUninit::<Dxbc2spirvOptions>::uninit();
    // SAFETY: a writable options struct, filled completely by the call.
    unsafe {
        dxbc2spirv_options_default(options.as_mut_ptr());
        options.assume_init()
    }
}

/// A C string of the reflection as Rust text (`None` for null).
fn text(pointer: *const c_char) -> Option<String> {
    // SAFETY: the pointers tested are null or strings owned by a live result.
    (!pointer.is_null()).then(|| {
        unsafe { CStr::from_ptr(pointer) }
            .to_string_lossy()
            .into_owned()
    })
}

/// `dxbc2spirv_scan` makes no module and gives the reflection as structs: the UAV's class,
/// Vulkan type and binding, the thread-group size and the model.
#[test]
fn scan_gives_the_reflection_as_structs() {
    let bytes = translator::asm::assemble(SHADER).expect("assembles");
    let options = default_options();
    let mut result = std::ptr::null_mut();
    // SAFETY: live buffers, options and out pointers; the result is freed at the end.
    unsafe {
        let status = dxbc2spirv_scan(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        let mut count = 99;
        dxbc2spirv_result_words(result, &mut count);
        assert_eq!(count, 0, "a scan makes no module");
        assert_eq!(dxbc2spirv_reflection_descriptor_count(result), 1);
        let mut range = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_descriptor(result, 0, range.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        let range = range.assume_init();
        assert_eq!(
            range.descriptor_class,
            Dxbc2spirvDescriptorClass::UnorderedAccess
        );
        assert_eq!(range.vk_descriptor_type, 7, "a raw UAV is a storage buffer");
        let placed = (range.set, range.binding, range.descriptor_count);
        assert_eq!(placed, (0, 160, 1), "{range:?}");
        assert_eq!(text(range.dimension).as_deref(), Some("raw_buffer"));
        let mut spare = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_descriptor(result, 1, spare.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
        assert!(
            last_error().contains("index 1 out of range"),
            "{}",
            last_error()
        );
        let mut stage = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_stage(result, stage.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        let stage = stage.assume_init();
        assert_eq!(stage.thread_group_size, [1, 1, 1]);
        assert_eq!(text(stage.model).as_deref(), Some("cs_5_0"));
        assert_eq!(text(stage.domain), None);
        dxbc2spirv_result_free(result);
    }
}

/// The signatures and geometry parameters of a translated geometry shader, as structs.
#[test]
fn signatures_and_stage_parameters_as_structs() {
    let text_in = include_str!("../../../tests/in/reflect/gs_params.asm");
    let bytes = translator::asm::assemble(text_in).expect("assembles");
    let options = default_options();
    let mut result = std::ptr::null_mut();
    // SAFETY: live buffers, options and out pointers; the result is freed at the end.
    unsafe {
        let status = dxbc2spirv_translate(bytes.as_ptr(), bytes.len(), &options, &mut result);
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        for kind in [
            Dxbc2spirvSignatureKind::Input,
            Dxbc2spirvSignatureKind::Output,
        ] {
            let count = dxbc2spirv_reflection_signature_count(result, kind as u32);
            assert_eq!(count, 1, "{kind:?} of\n{text_in}");
            let mut element = std::mem::MaybeUninit::uninit();
            let status = dxbc2spirv_reflection_signature_element(
                result,
                kind as u32,
                0,
                element.as_mut_ptr(),
            );
            assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
            let element = element.assume_init();
            assert_eq!(text(element.semantic_name).as_deref(), Some("SV_Position"));
            let fields = (element.register_index, element.mask, element.system_value);
            assert_eq!(fields, (0, 0xf, 1), "{kind:?}: {element:?}");
        }
        let patch = Dxbc2spirvSignatureKind::PatchConstant as u32;
        assert_eq!(dxbc2spirv_reflection_signature_count(result, patch), 0);
        assert_eq!(dxbc2spirv_reflection_signature_count(result, 7), 0);
        let mut element = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_signature_element(result, 7, 0, element.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
        assert!(
            last_error().contains("signature kind 7"),
            "{}",
            last_error()
        );
        let mut stage = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_stage(result, stage.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::Ok, "{}", last_error());
        let stage = stage.assume_init();
        assert_eq!(text(stage.input_primitive).as_deref(), Some("triangle"));
        assert_eq!(
            text(stage.output_topology).as_deref(),
            Some("trianglestrip")
        );
        assert_eq!(stage.max_output_vertices, 3);
        assert_eq!(stage.thread_group_size, [0, 0, 0]);
        dxbc2spirv_result_free(result);
        let mut spare = std::mem::MaybeUninit::uninit();
        let status = dxbc2spirv_reflection_stage(std::ptr::null(), spare.as_mut_ptr());
        assert_eq!(status, Dxbc2spirvStatus::ErrorUsage);
        assert_eq!(dxbc2spirv_reflection_descriptor_count(std::ptr::null()), 0);
    }
}

/// Options of another API version are refused by translate and scan, naming the versions;
/// the library reports its version.
#[test]
fn another_api_version_is_refused() {
    let bytes = translator::asm::assemble(SHADER).expect("assembles");
    let mut options = default_options();
    assert_eq!(options.api_version, DXBC2SPIRV_API_VERSION);
    assert_eq!(dxbc2spirv_api_version(), DXBC2SPIRV_API_VERSION);
    assert_eq!(
        text(dxbc2spirv_version()).as_deref(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    options.api_version = DXBC2SPIRV_API_VERSION + 1;
    let mut result = std::ptr::null_mut();
    type Call = unsafe extern "C" fn(
        *const u8,
        usize,
        *const Dxbc2spirvOptions,
        *mut *mut Dxbc2spirvResult,
    ) -> Dxbc2spirvStatus;
    let calls: [(&str, Call); 2] = [
        ("dxbc2spirv_translate", dxbc2spirv_translate),
        ("dxbc2spirv_scan", dxbc2spirv_scan),
    ];
    for (name, call) in calls {
        // SAFETY: live buffers, options and out pointer.
        let status = unsafe { call(bytes.as_ptr(), bytes.len(), &options, &mut result) };
        assert_eq!(status, Dxbc2spirvStatus::ErrorUsage, "{name}");
        assert!(result.is_null(), "{name}");
        let expected = format!("{name}: api_version {}", DXBC2SPIRV_API_VERSION + 1);
        assert!(
            last_error().starts_with(&expected),
            "{name}: {}",
            last_error()
        );
    }
}

/// The struct form agrees with the JSON form, field by field, on every reflection input of
/// `tests/in/reflect` (descriptor ranges of every class, class linkage, dynamic constant
/// buffers, signatures, geometry parameters).
#[test]
fn structs_agree_with_the_json_on_the_reflect_inputs() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/in/reflect");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/in/reflect")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 3,
        "the reflect inputs are missing in {}",
        dir.display()
    );
    let options = default_options();
    for input in inputs {
        let name = input.display().to_string();
        let bytes = translator::asm::assemble(&std::fs::read_to_string(&input).expect("read"))
            .expect("assembles");
        let mut result = std::ptr::null_mut();
        // SAFETY: live buffers, options and out pointers; the result is freed at the end.
        unsafe {
            let status = dxbc2spirv_scan(bytes.as_ptr(), bytes.len(), &options, &mut result);
            assert_eq!(status, Dxbc2spirvStatus::Ok, "{name}: {}", last_error());
            let json = CStr::from_ptr(dxbc2spirv_result_reflection_json(result));
            let json: serde_json::Value =
                serde_json::from_str(&json.to_string_lossy()).expect("JSON");
            let ranges = json["descriptor_ranges"].as_array().expect("ranges");
            assert_eq!(dxbc2spirv_reflection_descriptor_count(result), ranges.len());
            for (i, expected) in ranges.iter().enumerate() {
                let mut range = std::mem::MaybeUninit::uninit();
                let status = dxbc2spirv_reflection_descriptor(result, i, range.as_mut_ptr());
                assert_eq!(status, Dxbc2spirvStatus::Ok, "{name}: {}", last_error());
                let r = range.assume_init();
                let class = match r.descriptor_class {
                    Dxbc2spirvDescriptorClass::ConstantBuffer => "cbv",
                    Dxbc2spirvDescriptorClass::Sampler => "sampler",
                    Dxbc2spirvDescriptorClass::ShaderResource => "srv",
                    Dxbc2spirvDescriptorClass::UnorderedAccess => "uav",
                    Dxbc2spirvDescriptorClass::UavCounter => "uav_counter",
                };
                let nonzero = |n: u32| (n != 0).then_some(n);
                let actual = serde_json::json!({
                    "name": text(r.name),
                    "class": class,
                    "id": r.id,
                    "space": r.space,
                    "lower_bound": r.lower_bound,
                    "count": nonzero(r.register_count),
                    "binding": {"set": r.set, "binding": r.binding, "array_offset": r.array_offset},
                    "descriptor_count": nonzero(r.descriptor_count),
                    "dimension": text(r.dimension),
                    "stride": nonzero(r.stride),
                    "cbuffer_size": nonzero(r.cbuffer_size),
                    "counter": (r.uav_counter != 0).then_some((r.counter_set, r.counter_binding)),
                });
                let counter = &expected["counter_binding"];
                let wanted = serde_json::json!({
                    "name": expected["name"],
                    "class": expected["class"],
                    "id": expected["id"],
                    "space": expected["space"],
                    "lower_bound": expected["lower_bound"],
                    "count": expected["count"],
                    "binding": expected["binding"],
                    "descriptor_count": expected["descriptor_count"],
                    "dimension": expected["dimension"],
                    "stride": expected["stride"],
                    "cbuffer_size": expected["cbuffer_size"],
                    "counter": (!counter.is_null()).then(|| (&counter["set"], &counter["binding"])),
                });
                assert_eq!(actual, wanted, "{name}: range {i}");
            }
            for (kind, key) in [(0, "inputs"), (1, "outputs"), (2, "patch_constants")] {
                let elements = json[key].as_array().cloned().unwrap_or_default();
                let count = dxbc2spirv_reflection_signature_count(result, kind);
                assert_eq!(count, elements.len(), "{name}: {key}");
                for (i, expected) in elements.iter().enumerate() {
                    let mut element = std::mem::MaybeUninit::uninit();
                    let status = dxbc2spirv_reflection_signature_element(
                        result,
                        kind,
                        i,
                        element.as_mut_ptr(),
                    );
                    assert_eq!(status, Dxbc2spirvStatus::Ok, "{name}: {}", last_error());
                    let e = element.assume_init();
                    let actual = (text(e.semantic_name), e.semantic_index, e.register_index);
                    let semantic = expected["semantic"].as_str().map(str::to_string);
                    let index = expected["index"]
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok());
                    let register = expected["register"]
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok());
                    let wanted = (
                        semantic,
                        index.unwrap_or(u32::MAX),
                        register.unwrap_or(u32::MAX),
                    );
                    assert_eq!(actual, wanted, "{name}: {key} element {i}");
                }
            }
            let mut stage = std::mem::MaybeUninit::uninit();
            let status = dxbc2spirv_reflection_stage(result, stage.as_mut_ptr());
            assert_eq!(status, Dxbc2spirvStatus::Ok, "{name}: {}", last_error());
            let stage = stage.assume_init();
            let geometry = &json["geometry"];
            let actual = serde_json::json!({
                "model": text(stage.model),
                "input_primitive": text(stage.input_primitive),
                "max_output_vertices": (stage.max_output_vertices != 0)
                    .then_some(stage.max_output_vertices),
                "thread_group_size": (stage.thread_group_size != [0; 3])
                    .then_some(stage.thread_group_size),
            });
            let wanted = serde_json::json!({
                "model": json["model"],
                "input_primitive": geometry["input_primitive"],
                "max_output_vertices": geometry["max_output_vertices"],
                "thread_group_size": json["thread_group_size"],
            });
            assert_eq!(actual, wanted, "{name}: stage parameters");
            dxbc2spirv_result_free(result);
        }
    }
}
