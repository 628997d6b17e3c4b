//! The `reflect` subcommand and `translate --bindings`, run as a program.

use std::process::{Command, Output};

fn dxbc2spirv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxbc2spirv"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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
        env!("CARGO_MANIFEST_DIR"),
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
