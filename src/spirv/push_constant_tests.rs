//! Tests of constant buffers in push constants: the one block, static and dynamic reads,
//! the reflection, and the errors.

use super::test_support::{decorations, disassemble, validate};
use crate::bindings::BindingMap;
use crate::{translate_bytes, TranslateOptions};
use spirv::{Decoration, Op, StorageClass};

/// cb2 (3 vectors) and cb5 (1 vector), read statically and with a dynamic index; cb0 stays
/// a uniform buffer.
const SHADER: &str = "cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_constantbuffer CB2[3], dynamicIndexed
dcl_constantbuffer CB5[1], immediateIndexed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, cb0[0].x
mov r1.xyzw, cb2[r0.x + 1].xyzw
add r1.xyzw, r1.xyzw, cb2[0].xyzw
add r1.xyzw, r1.xyzw, cb5[0].xyzw
store_raw u0.xyzw, l(0), r1.xyzw
ret
";

fn options(map: &str) -> TranslateOptions {
    TranslateOptions {
        bindings: Some(BindingMap::from_json(map).unwrap_or_else(|e| panic!("{e}"))),
        ..Default::default()
    }
}

const MAP: &str = r#"{ "fallback_to_default": true, "ranges": [
    { "class": "cbv", "space": 0, "first": 2, "push_constant": true, "offset": 16, "size": 48 },
    { "class": "cbv", "space": 0, "first": 5, "push_constant": true, "offset": 0 } ] }"#;

#[test]
fn constant_buffers_share_one_push_constant_block() {
    let bytes = crate::asm::assemble(SHADER).expect("assembles");
    let t = translate_bytes(&bytes, &options(MAP)).expect("translates");
    validate(&t.words);
    let module = rspirv::dr::load_words(&t.words).expect("loads");
    let push_vars: Vec<_> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first()
                    == Some(&rspirv::dr::Operand::StorageClass(
                        StorageClass::PushConstant,
                    ))
        })
        .collect();
    assert_eq!(push_vars.len(), 1, "{}", disassemble(&t.words));
    // Members at offsets 0 (cb5) and 16 (cb2).
    let offsets: Vec<u32> = module
        .annotations
        .iter()
        .filter(|i| i.class.opcode == Op::MemberDecorate)
        .filter(|i| i.operands.get(2) == Some(&rspirv::dr::Operand::Decoration(Decoration::Offset)))
        .filter_map(|i| match i.operands.get(3) {
            Some(rspirv::dr::Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        })
        .collect();
    assert!(offsets.contains(&16), "{offsets:?}");
    // cb0 keeps its descriptor: one uniform buffer binding.
    assert_eq!(
        decorations(&module, Decoration::Binding).len(),
        2,
        "cb0 and u0"
    );
    let ranges: Vec<String> = t
        .reflection
        .ranges
        .iter()
        .map(|r| format!("{}{}", r.binding.register.name(), r.binding.range.id))
        .collect();
    assert_eq!(ranges, vec!["cb0", "u0"]);
    let json = t.reflection.to_json();
    let push = json["push_constants"].as_array().expect("a list");
    assert_eq!(push.len(), 2, "{json:#}");
    assert_eq!(push[0]["register"], 5);
    assert_eq!(push[0]["offset"], 0);
    assert_eq!(push[0]["size"], 16);
    assert_eq!(push[1]["register"], 2);
    assert_eq!(push[1]["offset"], 16);
    assert_eq!(push[1]["size"], 48);
    assert_eq!(push[1]["provided_size"], 48);
    // The scan agrees.
    let scanned = crate::scan_bytes(&bytes, &options(MAP)).expect("scans");
    assert_eq!(scanned.to_json(), json);
}

#[test]
fn push_constant_errors_name_the_range() {
    let bytes = crate::asm::assemble(SHADER).expect("assembles");
    for (map, wanted) in [
        (
            r#"{ "fallback_to_default": true, "ranges": [
                { "class": "cbv", "first": 2, "push_constant": true, "offset": 0, "size": 32 } ] }"#,
            "cb2 (buffer) in space 0 is 48 bytes (3 vectors), more than the 32 bytes",
        ),
        (
            r#"{ "fallback_to_default": true, "ranges": [
                { "class": "cbv", "first": 2, "push_constant": true, "offset": 0 },
                { "class": "cbv", "first": 5, "push_constant": true, "offset": 32 } ] }"#,
            "overlap",
        ),
    ] {
        let error = translate_bytes(&bytes, &options(map))
            .expect_err(map)
            .to_string();
        assert!(error.contains(wanted), "{map}: {error}");
        assert!(error.contains("cb2") || error.contains("cb5"), "{error}");
    }
}

#[test]
fn push_constant_map_entries_are_checked_when_read() {
    for (map, wanted) in [
        (
            r#"{ "ranges": [ { "class": "srv", "first": 2, "push_constant": true, "offset": 0 } ] }"#,
            "only constant buffers",
        ),
        (
            r#"{ "ranges": [ { "class": "cbv", "first": 2, "push_constant": true, "offset": 8 } ] }"#,
            "offset 8 is not a multiple of 16",
        ),
        (
            r#"{ "ranges": [ { "class": "cbv", "first": 2, "last": 3, "push_constant": true, "offset": 0 } ] }"#,
            "one constant buffer",
        ),
        (
            r#"{ "ranges": [ { "class": "cbv", "first": 2, "push_constant": true, "offset": 0, "set": 1 } ] }"#,
            "set does not apply",
        ),
        (
            r#"{ "ranges": [ { "class": "cbv", "first": 2, "push_constant": true } ] }"#,
            "offset is missing",
        ),
        (
            r#"{ "ranges": [ { "class": "cbv", "first": 2, "set": 0, "binding": 0, "offset": 0 } ] }"#,
            "offset belongs to a push-constant entry",
        ),
        (
            r#"{ "ranges": [
                { "class": "cbv", "first": 2, "push_constant": true, "offset": 0, "size": 64 },
                { "class": "cbv", "first": 3, "push_constant": true, "offset": 48, "size": 16 } ] }"#,
            "ranges[0] (cbv cb2 in space 0 in push constants at offset 0 (64 bytes)) and ranges[1]",
        ),
    ] {
        let error = BindingMap::from_json(map).expect_err(map).to_string();
        assert!(error.contains(wanted), "{map}: {error}");
    }
}

/// A dynamic index outside the buffer reads 0 (D3D's out-of-bounds constant-buffer read):
/// the index is compared with the buffer's length.
#[test]
fn dynamic_push_constant_reads_are_bounds_checked() {
    let bytes = crate::asm::assemble(SHADER).expect("assembles");
    let options = TranslateOptions {
        no_optimize: true,
        ..options(MAP)
    };
    let t = translate_bytes(&bytes, &options).expect("translates");
    let module = rspirv::dr::load_words(&t.words).expect("loads");
    let compares = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::ULessThan)
        .count();
    assert!(compares >= 1, "{}", disassemble(&t.words));
}
