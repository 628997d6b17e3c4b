//! The `reflect` subcommand and `translate --bindings`, run as a program.

use std::process::{Command, Output};

fn dxbc2spirv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the dxbc2spirv binary runs")
}

fn show(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn reflect_json_of_the_seed_matches_the_golden_file() {
    let out = dxbc2spirv(&[
        "reflect",
        "shaders/seeds/sm51_resource_ranges.shader_test",
        "--json",
    ]);
    assert!(out.status.success(), "{}", show(&out));
    let golden = std::fs::read_to_string(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/out/reflect/sm51_resource_ranges.json"
    ))
    .expect("the golden file");
    assert_eq!(String::from_utf8_lossy(&out.stdout), golden);
    let out = dxbc2spirv(&["reflect", "tests/in/reflect/cs_ranges.asm"]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "t4..(unbounded) (buffer) in space 0 -> set 0 binding 36 offset 0 (runtime array)"
        ),
        "{text}"
    );
}

#[test]
fn translate_with_a_binding_map() {
    let out = dxbc2spirv(&[
        "translate",
        "tests/in/reflect/cs_ranges.asm",
        "--bindings",
        "tests/in/reflect/cs_ranges.map.json",
        "--validate",
        "--text",
    ]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DescriptorSet 2"), "{text}");
}

#[test]
fn unmapped_ranges_and_bad_maps_are_input_errors() {
    let map = std::env::temp_dir().join(format!("dxbc2spirv-map-{}.json", std::process::id()));
    std::fs::write(
        &map,
        r#"{"ranges": [{"class": "sampler", "first": 0, "last": null, "set": 0, "binding": 0}]}"#,
    )
    .unwrap();
    let out = dxbc2spirv(&[
        "translate",
        "shaders/seeds/sm51_resource_ranges.shader_test",
        "--bindings",
        map.to_str().unwrap(),
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no descriptor binding is mapped for t5 (image) in space 0"),
        "{stderr}"
    );
    std::fs::write(&map, "{\"ranges\": 3}").unwrap();
    let out = dxbc2spirv(&[
        "reflect",
        "tests/in/reflect/cs_ranges.asm",
        "--bindings",
        map.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let _ = std::fs::remove_file(&map);
}

/// Writes `json` to a map file of this process and test, runs the command with
/// `--bindings MAP` appended, and removes the file.
fn with_map(test: &str, json: &str, args: &[&str]) -> Output {
    let map = std::env::temp_dir().join(format!("dxbc2spirv-{test}-{}.json", std::process::id()));
    std::fs::write(&map, json).expect("the map is written");
    let mut all = args.to_vec();
    all.extend(["--bindings", map.to_str().expect("a UTF-8 temp path")]);
    let out = dxbc2spirv(&all);
    let _ = std::fs::remove_file(&map);
    out
}

/// A map the command refuses: exit status 1 and `expected` on stderr.
fn refused_map(test: &str, json: &str, expected: &str) {
    let out = with_map(
        test,
        json,
        &["translate", "tests/in/reflect/cs_ranges.asm", "-o", "-"],
    );
    assert_eq!(out.status.code(), Some(1), "map {json}\n{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(expected),
        "map {json}\nexpected on stderr: {expected}\n{}",
        show(&out)
    );
}

/// Registers past the D3D11 slots, large spaces and unbounded ranges next to bounded ones
/// translate with the default layout into a module spirv-val accepts, at the documented
/// bindings (src/bindings.rs: 288 + 5 * register + class code past the slots).
#[test]
fn default_layout_places_registers_beyond_the_d3d11_slots() {
    let shader = "tests/in/bindings/awkward_registers.asm";
    let out = dxbc2spirv(&["reflect", shader]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "cbv cb0 constant_buffer: cb20 (buffer) in space 0 -> set 0 binding 388 offset 0",
        "sampler s0 sampler: s20 (image) in space 1 -> set 1 binding 389 offset 0",
        "srv t0 texture2d: t199 (image) in space 3 -> set 3 binding 1285 offset 0",
        "srv t1 raw_buffer: t200..(unbounded) (buffer) in space 3 -> set 3 binding 1290 offset 0 \
         (runtime array)",
        "srv t2 raw_buffer: t0..t3 (buffer) in space 4294967295 -> set 4294967295 binding 32 \
         offset 0 (4 descriptors)",
        "srv t3 buffer: t536870911..(unbounded) (buffer) in space 2 -> set 2 binding 2684354845 \
         offset 0 (runtime array)",
        "uav u0 buffer: u100 (buffer) in space 0 -> set 0 binding 791 offset 0",
        "uav u1 structured_buffer: u70..u71 (buffer) in space 0 -> set 0 binding 641 offset 0 \
         (2 descriptors)",
        "uav u2 raw_buffer: u0 (buffer) in space 0 -> set 0 binding 160 offset 0",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == line),
            "{shader}: missing reflection line\n{line}\nin\n{text}"
        );
    }
    let out = dxbc2spirv(&["reflect", shader, "--json"]);
    assert!(out.status.success(), "{}", show(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let u1 = &json["descriptor_ranges"][7];
    assert_eq!(
        (&u1["lower_bound"], &u1["counter_binding"]["binding"]),
        (&serde_json::json!(70), &serde_json::json!(642)),
        "the counter of u70..u71: 288 + 5 * 70 + 4\n{u1:#}"
    );
    let out = dxbc2spirv(&["translate", shader, "--validate", "--text"]);
    assert!(out.status.success(), "{}", show(&out));
    let module = String::from_utf8_lossy(&out.stdout);
    for decoration in [
        "DescriptorSet 4294967295",
        "DescriptorSet 3",
        "Binding 1285",
        "Binding 1290",
        "Binding 2684354845",
        "Binding 642",
    ] {
        assert!(
            module.contains(decoration),
            "{shader}: no {decoration} in\n{module}"
        );
    }
}

#[test]
fn unknown_keys_in_a_binding_map_are_errors() {
    refused_map(
        "top",
        r#"{"fallback_to_default": true, "range": []}"#,
        r#"binding map: unknown key "range" (allowed: fallback_to_default, ranges) at the top level"#,
    );
    refused_map(
        "entry",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "cbv", "first": 0, "set": 0, "binding": 0},
            {"class": "srv", "space": 2, "first": 0, "set": 1, "binding": 0, "base": 16}]}"#,
        r#"binding map: ranges[1]: unknown key "base" (allowed: class, kind, space, first, last, set, binding, array_offset, push_constant, offset, size)"#,
    );
    refused_map(
        "offset",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "srv", "space": 2, "first": 0, "set": 1, "binding": 0, "offset": 16}]}"#,
        r#"binding map: ranges[0]: offset belongs to a push-constant entry ("push_constant": true)"#,
    );
    refused_map(
        "class",
        r#"{"ranges": [{"class": "uav-counter", "first": 0, "set": 0, "binding": 0}]}"#,
        r#"binding map: ranges[0]: class "uav-counter" is not cbv, sampler, srv, uav or uav_counter"#,
    );
}

/// A storage image and a storage buffer cannot share set 2 binding 1, even in different
/// array elements: the error names both entries.
#[test]
fn map_entries_of_different_descriptor_types_on_one_binding_are_errors() {
    refused_map(
        "types",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "uav", "kind": "image", "space": 0, "first": 6, "last": 7, "set": 2, "binding": 1},
            {"class": "uav_counter", "space": 0, "first": 4, "last": 5, "set": 2, "binding": 1, "array_offset": 2}]}"#,
        "binding map: ranges[0] (uav image u6..u7 in space 0 at set 2 binding 1 offset 0, a \
         storage image) and ranges[1] (uav_counter u4..u5 in space 0 at set 2 binding 1 offset 2, \
         a storage buffer) share set 2 binding 1 but cannot have the same descriptor type",
    );
}

/// Storage buffers of different ranges (a raw SRV and a raw UAV) may share one arrayed
/// binding in separate elements: the module validates and both variables carry the binding.
#[test]
fn map_entries_of_one_descriptor_type_may_share_a_binding() {
    let out = with_map(
        "same",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "uav", "kind": "buffer", "space": 0, "first": 0, "last": 3, "set": 1, "binding": 5},
            {"class": "srv", "kind": "buffer", "space": 2, "first": 8, "last": 11, "set": 1, "binding": 5, "array_offset": 4}]}"#,
        &[
            "translate",
            "tests/in/reflect/cs_ranges.asm",
            "--validate",
            "--text",
        ],
    );
    assert!(out.status.success(), "{}", show(&out));
    let module = String::from_utf8_lossy(&out.stdout);
    let at_binding_5 = module
        .lines()
        .filter(|l| l.contains("OpDecorate") && l.ends_with("Binding 5"))
        .count();
    assert_eq!(at_binding_5, 2, "two variables at binding 5 in\n{module}");
}

/// Registers from 2^29 on (up to 0xFFFFFFFF, in space 0xFFFFFFFF) translate with the default
/// layout: numbered per shader and set from binding 2684354848, by class and then register.
#[test]
fn default_layout_numbers_the_largest_registers_per_shader() {
    let shader = "tests/in/bindings/largest_registers.asm";
    let out = dxbc2spirv(&["reflect", shader]);
    assert!(out.status.success(), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "srv t0 raw_buffer: t4294967295..(unbounded) (buffer) in space 4294967295 -> set \
         4294967295 binding 2684354849 offset 0 (runtime array)",
        "srv t1 raw_buffer: t536870912..t536870913 (buffer) in space 4294967295 -> set \
         4294967295 binding 2684354848 offset 0 (2 descriptors)",
        "srv t2 raw_buffer: t7 (buffer) in space 4294967295 -> set 4294967295 binding 39 offset 0",
        "uav u0 structured_buffer: u3000000000 (buffer) in space 0 -> set 0 binding 2684354849 \
         offset 0",
        "uav u1 raw_buffer: u536870912..(unbounded) (buffer) in space 0 -> set 0 binding \
         2684354848 offset 0 (runtime array)",
    ] {
        assert!(
            text.lines().any(|l| l.trim() == line),
            "{shader}: missing reflection line\n{line}\nin\n{text}"
        );
    }
    let out = dxbc2spirv(&["translate", shader, "--validate", "--text"]);
    assert!(out.status.success(), "{}", show(&out));
    let module = String::from_utf8_lossy(&out.stdout);
    // The counter of u3000000000 follows the UAV.
    assert!(module.contains("Binding 2684354850"), "{shader}:\n{module}");
}

/// A raw SRV (storage buffer) and a typed UAV buffer (storage texel buffer) on one binding:
/// the map alone allows it (an SRV buffer may be a storage buffer), the declarations do not.
#[test]
fn ranges_of_different_descriptor_types_on_one_binding_are_translation_errors() {
    let out = with_map(
        "declared",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "srv", "kind": "buffer", "space": 2, "first": 8, "last": 11, "set": 1, "binding": 0},
            {"class": "uav", "kind": "buffer", "space": 0, "first": 0, "last": 3, "set": 1, "binding": 0, "array_offset": 4},
            {"class": "uav", "kind": "image", "space": 0, "first": 6, "last": 7, "set": 1, "binding": 1}]}"#,
        &["translate", "tests/in/reflect/cs_ranges.asm", "-o", "-"],
    );
    assert!(
        out.status.success(),
        "same type, separate elements\n{}",
        show(&out)
    );
    let out = with_map(
        "declared",
        r#"{"fallback_to_default": true, "ranges": [
            {"class": "srv", "kind": "buffer", "space": 2, "first": 8, "last": 11, "set": 1, "binding": 0},
            {"class": "uav", "space": 0, "first": 6, "last": 7, "set": 1, "binding": 0, "array_offset": 4}]}"#,
        &["translate", "tests/in/reflect/cs_ranges.asm", "-o", "-"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for part in [
        "instruction 6",
        "t8..t11 (buffer) in space 2 (a storage buffer) and u6..u7 (image) in space 0 (a storage \
         image) share set 1 binding 0, but a Vulkan binding has one descriptor type",
    ] {
        assert!(stderr.contains(part), "expected {part}\n{}", show(&out));
    }
}
