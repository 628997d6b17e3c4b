//! Tests of the interface map: JSON, placements, errors, and translations that follow it
//! (checked with spirv-val and by the decorations of the module).

use super::*;
use crate::spirv::test_support::{decorations, disassemble, validate};
use crate::{translate_bytes, TranslateOptions};
use rspirv::dr::Module as SpvModule;
use spirv::{Decoration, StorageClass};

/// A vertex shader writing TEXCOORD0 to o1.xy and TEXCOORD1 to o1.zw, COLOR0 to o2.
const VS: &str = "vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output o1.zw
dcl_output o2.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xy, l(1.0, 2.0, 0, 0)
mov o1.zw, l(0, 0, 3.0, 4.0)
mov o2.xyzw, l(5.0, 6.0, 7.0, 8.0)
ret
";

/// Its signature table (the assembler takes fxc's tables).
const VS_SIGNATURE: &str = "//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// POSITION                 0   xyzw        0     NONE   float   xyzw
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xy          1     NONE   float   xy
// TEXCOORD                 1     zw        1     NONE   float     zw
// COLOR                    0   xyzw        2     NONE   float   xyzw
//
";

/// A pixel shader reading the same semantics packed otherwise: COLOR0 in v1, TEXCOORD1 in
/// v2.xy, TEXCOORD0 in v2.zw.
const PS: &str = "//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float
// color                    0   xyzw        1     NONE   float   xyzw
// TEXCOORD                 1   xy          2     NONE   float   xy
// TEXCOORD                 0     zw        2     NONE   float     zw
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET   float   xyzw
//
ps_5_0
dcl_input_ps linear v1.xyzw
dcl_input_ps linear v2.xy
dcl_input_ps linear v2.zw
dcl_output o0.xyzw
add o0.xyzw, v1.xyzw, v2.xyzw
ret
";

fn assemble(text: &str) -> Vec<u8> {
    crate::asm::assemble(text).unwrap_or_else(|e| panic!("assembles: {e}\n{text}"))
}

fn translate(text: &str, options: &TranslateOptions) -> crate::Translation {
    let translation = translate_bytes(&assemble(text), options)
        .unwrap_or_else(|e| panic!("translates: {e}\n{text}"));
    validate(&translation.words);
    translation
}

fn module(words: &[u32]) -> SpvModule {
    rspirv::dr::load_words(words).expect("loads")
}

/// (location, component or 0, storage class) of every variable with a Location.
fn locations(words: &[u32]) -> Vec<(u32, u32, StorageClass, u32)> {
    let m = module(words);
    let components = decorations(&m, Decoration::Component);
    let mut list = Vec::new();
    for (id, values) in decorations(&m, Decoration::Location) {
        let component = components
            .iter()
            .find(|(c, _)| *c == id)
            .map_or(0, |(_, v)| v[0]);
        let class = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
            .and_then(|i| match i.operands.first() {
                Some(rspirv::dr::Operand::StorageClass(c)) => Some(*c),
                _ => None,
            })
            .expect("a variable");
        list.push((values[0], component, class, id));
    }
    list.sort_by_key(|&(l, c, s, _)| (s as u32, l, c));
    list
}

/// The (location, component) of each variable of `class`, in order.
fn placed(words: &[u32], class: StorageClass) -> Vec<(u32, u32)> {
    locations(words)
        .into_iter()
        .filter(|l| l.2 == class)
        .map(|(l, c, _, _)| (l, c))
        .collect()
}

fn vs_map() -> InterfaceMap {
    InterfaceMap::from_json(
        r#"{ "outputs": [
              { "semantic": "texcoord", "index": 0, "location": 4 },
              { "semantic": "TEXCOORD", "index": 1, "location": 4 },
              { "semantic": "COLOR", "location": 7 } ] }"#,
    )
    .expect("map")
}

#[test]
fn json_round_trip_and_defaults() {
    let text = r#"{ "inputs": [ { "semantic": "TEXCOORD", "index": 1, "location": 3 },
                                { "register": 2, "location": 5, "component": 1 },
                                { "semantic": "N", "location": 0, "component": 2,
                                  "vector_component": 0, "vector_components": 4 } ] }"#;
    let map = InterfaceMap::from_json(text).expect("parses");
    assert_eq!(map.outputs, None);
    assert_eq!(map.patch_constants, None);
    let inputs = map.inputs.clone().expect("inputs");
    assert_eq!(
        inputs[0].key,
        InterfaceKey::Semantic {
            name: "TEXCOORD".into(),
            index: 1
        }
    );
    assert_eq!(inputs[0].component, None);
    assert_eq!(inputs[1].key, InterfaceKey::Register(2));
    assert_eq!(inputs[1].component, Some(1));
    assert_eq!(inputs[2].vector, Some((0, 4)));
    let again = InterfaceMap::from_json(&map.to_json().to_string()).expect("parses again");
    assert_eq!(again, map);
}

#[test]
fn bad_json_is_an_error_naming_the_entry() {
    for (text, wanted) in [
        ("[]", "expected an object"),
        (r#"{"input": []}"#, "unknown key \"input\""),
        (r#"{"inputs": {}}"#, "inputs must be an array"),
        (
            r#"{"inputs": [{"semantic": "A"}]}"#,
            "inputs[0]: location is missing",
        ),
        (
            r#"{"outputs": [{"location": 1}]}"#,
            "outputs[0]: semantic or register is missing",
        ),
        (
            r#"{"outputs": [{"semantic": "A", "register": 1, "location": 1}]}"#,
            "not both",
        ),
        (
            r#"{"outputs": [{"semantic": "A", "location": 1, "component": 4}]}"#,
            "component 4 is not 0 to 3",
        ),
        (
            r#"{"outputs": [{"semantic": "A", "location": 1, "colour": 4}]}"#,
            "unknown key \"colour\"",
        ),
        (
            r#"{"patch_constants": [{"semantic": "A", "location": 1, "vector_component": 1}]}"#,
            "go together",
        ),
        (
            r#"{"inputs": [{"semantic": "A", "location": 1, "vector_component": 2, "vector_components": 3}]}"#,
            "does not fit",
        ),
        (
            r#"{"inputs": [{"register": 1, "index": 0, "location": 1}]}"#,
            "index belongs to a semantic",
        ),
    ] {
        let error = InterfaceMap::from_json(text).expect_err(text).to_string();
        assert!(error.contains(wanted), "{text}: {error}");
    }
}

#[test]
fn mask_spans() {
    assert_eq!(mask_span(0b0011), (0, 2));
    assert_eq!(mask_span(0b1100), (2, 2));
    assert_eq!(mask_span(0b0100), (2, 1));
    assert_eq!(mask_span(0b1111), (0, 4));
    assert_eq!(mask_span(0), (0, 4));
}

/// Without a map the reflection reports the register scheme: location = register, the
/// element's components in the register's vec4.
#[test]
fn the_register_scheme_is_reported() {
    let t = translate(&format!("{VS_SIGNATURE}{VS}"), &TranslateOptions::default());
    let outputs = &t.reflection.placements.outputs;
    assert_eq!(outputs[0], None, "SV_Position is a built-in");
    let texcoord1 = outputs[2].expect("TEXCOORD1");
    assert_eq!((texcoord1.location, texcoord1.component), (1, 2));
    assert_eq!(
        (texcoord1.vector_component, texcoord1.vector_components),
        (0, 4)
    );
    let json = t.reflection.to_json();
    assert_eq!(json["outputs"][2]["placement"]["location"], 1);
    assert_eq!(json["outputs"][0]["placement"], serde_json::Value::Null);
}

/// A map places packed elements apart or together, keeping their components; the pixel
/// shader, packed otherwise, takes the map derived from the vertex shader's reflection and
/// reads each semantic from the variable the vertex shader writes.
#[test]
fn a_vertex_and_a_pixel_shader_link_by_semantic() {
    let vs_options = TranslateOptions {
        interface: Some(vs_map()),
        ..Default::default()
    };
    let vs = translate(&format!("{VS_SIGNATURE}{VS}"), &vs_options);
    let out = placed(&vs.words, StorageClass::Output);
    // TEXCOORD0 at 4.xy, TEXCOORD1 at 4.zw (its component kept), COLOR0 at 7.
    assert_eq!(
        out,
        vec![(4, 0), (4, 2), (7, 0)],
        "{}",
        disassemble(&vs.words)
    );
    let p = &vs.reflection.placements.outputs;
    assert_eq!(p[1].map(|p| (p.location, p.component)), Some((4, 0)));
    assert_eq!(p[2].map(|p| (p.location, p.component)), Some((4, 2)));
    assert_eq!(
        p[3].map(|p| (p.location, p.vector_components)),
        Some((7, 4))
    );

    let ps_map = InterfaceMap::inputs_from(&vs.reflection);
    let ps_options = TranslateOptions {
        interface: Some(ps_map),
        ..Default::default()
    };
    let ps = translate(PS, &ps_options);
    let inputs = placed(&ps.words, StorageClass::Input);
    assert_eq!(
        inputs,
        vec![(4, 0), (4, 2), (7, 0)],
        "{}",
        disassemble(&ps.words)
    );
    // The pixel shader's own reflection says where its inputs are: v2.xy (TEXCOORD1) at
    // 4.zw, the semantic compared without regard to case (`color` reads COLOR).
    let p = &ps.reflection.placements.inputs;
    assert_eq!(p[2].map(|p| (p.location, p.component)), Some((4, 2)));
    assert_eq!(p[1].map(|p| (p.location, p.component)), Some((7, 0)));
}

/// The register scheme of the previous stage: elements of one register are one vec4, and
/// the derived map makes the next stage read that vec4 (one variable for both elements).
#[test]
fn inputs_from_a_shader_without_a_map() {
    let vs = translate(&format!("{VS_SIGNATURE}{VS}"), &TranslateOptions::default());
    let ps_options = TranslateOptions {
        interface: Some(InterfaceMap::inputs_from(&vs.reflection)),
        ..Default::default()
    };
    let ps = translate(PS, &ps_options);
    let inputs = placed(&ps.words, StorageClass::Input);
    assert_eq!(inputs, vec![(1, 0), (2, 0)], "{}", disassemble(&ps.words));
}

#[test]
fn overlapping_elements_are_an_error_naming_them() {
    let map = InterfaceMap::from_json(
        r#"{ "outputs": [
              { "semantic": "TEXCOORD", "index": 0, "location": 4, "component": 1 },
              { "semantic": "TEXCOORD", "index": 1, "location": 4 },
              { "semantic": "COLOR", "location": 7 } ] }"#,
    )
    .expect("map");
    let options = TranslateOptions {
        interface: Some(map),
        ..Default::default()
    };
    let bytes = assemble(&format!("{VS_SIGNATURE}{VS}"));
    let error = translate_bytes(&bytes, &options)
        .expect_err("overlap")
        .to_string();
    assert!(
        error.contains("TEXCOORD0 (o1.xy)") && error.contains("TEXCOORD1 (o1.zw)"),
        "{error}"
    );
    assert!(error.contains("location 4"), "{error}");
    // The scan reports the same error.
    let scanned = crate::scan_bytes(&bytes, &options).expect_err("overlap");
    assert_eq!(scanned.to_string(), error);
}

#[test]
fn an_element_the_map_does_not_place_is_an_error() {
    let map = InterfaceMap::from_json(
        r#"{ "inputs": [ { "semantic": "COLOR", "location": 0 },
                         { "semantic": "TEXCOORD", "index": 0, "location": 1 } ] }"#,
    )
    .expect("map");
    let options = TranslateOptions {
        interface: Some(map),
        ..Default::default()
    };
    let error = translate_bytes(&assemble(PS), &options)
        .expect_err("TEXCOORD1 has no place")
        .to_string();
    assert!(error.contains("input TEXCOORD1 (v2.xy)"), "{error}");
    assert!(error.contains("every input to match an output"), "{error}");
}

#[test]
fn an_element_wider_than_the_output_it_reads_is_an_error() {
    let map = InterfaceMap::from_json(
        r#"{ "inputs": [ { "semantic": "COLOR", "location": 0, "component": 0,
                           "vector_component": 0, "vector_components": 2 },
                         { "semantic": "TEXCOORD", "index": 0, "location": 1 },
                         { "semantic": "TEXCOORD", "index": 1, "location": 2 } ] }"#,
    )
    .expect("map");
    let options = TranslateOptions {
        interface: Some(map),
        ..Default::default()
    };
    let error = translate_bytes(&assemble(PS), &options)
        .expect_err("COLOR0 does not fit")
        .to_string();
    assert!(error.contains("input color0 (v1.xyzw)"), "{error}");
}

#[test]
fn a_pixel_shaders_outputs_are_not_placed() {
    let map = InterfaceMap::from_json(r#"{ "outputs": [ { "register": 0, "location": 1 } ] }"#)
        .expect("map");
    let options = TranslateOptions {
        interface: Some(map),
        ..Default::default()
    };
    let error = translate_bytes(&assemble(PS), &options)
        .expect_err("render targets")
        .to_string();
    assert!(error.contains("render targets"), "{error}");
}

/// Keyed by register: the register's elements stay one vec4, moved to the location.
#[test]
fn a_register_key_moves_the_whole_register() {
    let map = InterfaceMap::from_json(
        r#"{ "outputs": [ { "register": 1, "location": 9 }, { "register": 2, "location": 3 } ] }"#,
    )
    .expect("map");
    let options = TranslateOptions {
        interface: Some(map),
        ..Default::default()
    };
    let vs = translate(&format!("{VS_SIGNATURE}{VS}"), &options);
    let out = placed(&vs.words, StorageClass::Output);
    assert_eq!(out, vec![(3, 0), (9, 0)], "{}", disassemble(&vs.words));
}

/// Dual-source blending: o0 and o1 at location 0, index 0 and 1; o2 has no variable.
#[test]
fn dual_source_blending_puts_o1_at_index_1() {
    let text = "ps_5_0
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_output o2.xyzw
mov o0.xyzw, l(1.0, 0, 0, 1.0)
mov o1.xyzw, l(0, 1.0, 0, 1.0)
mov o2.xyzw, l(0, 0, 1.0, 1.0)
ret
";
    let options = TranslateOptions {
        dual_source_blending: true,
        ..Default::default()
    };
    let t = translate(text, &options);
    let m = module(&t.words);
    let outputs: Vec<_> = locations(&t.words)
        .into_iter()
        .filter(|l| l.2 == StorageClass::Output)
        .collect();
    assert_eq!(outputs.len(), 2, "{}", disassemble(&t.words));
    assert!(outputs.iter().all(|&(l, c, _, _)| (l, c) == (0, 0)));
    let index = decorations(&m, Decoration::Index);
    assert_eq!(index.len(), 1, "{}", disassemble(&t.words));
    let p = &t.reflection.placements.outputs;
    assert_eq!(p[1].map(|p| (p.location, p.index)), Some((0, 1)));
    assert_eq!(p[2], None, "o2 is dropped");
    // Off by default: three outputs at locations 0, 1, 2.
    let plain = translate(text, &TranslateOptions::default());
    let outputs: Vec<_> = locations(&plain.words)
        .into_iter()
        .map(|(l, _, _, _)| l)
        .collect();
    assert_eq!(outputs, vec![0, 1, 2]);
}

const HULL: &str = "hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_input v[3][1].xy
dcl_output o0.xyzw
dcl_output o1.xy
mov o0.xyzw, v[vOutputControlPointID][0].xyzw
mov o1.xy, v[vOutputControlPointID][1].xyxx
ret
hs_fork_phase
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_output o4.xy
dcl_output o4.zw
mov o0.x, l(1.0)
mov o1.x, l(1.0)
mov o2.x, l(1.0)
mov o3.x, l(1.0)
mov o4.xy, l(5.0, 6.0, 0, 0)
mov o4.zw, l(0, 0, 7.0, 8.0)
ret
";

const DOMAIN: &str = "ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_input vicp[3][1].xy
dcl_input vpc4.xy
dcl_input vpc4.zw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, vicp[0][0].xyzw
add o1.xy, vicp[1][1].xyxx, vpc4.xyxx
mov o1.zw, vpc4.zzzw
ret
";

/// Control points and patch constants of a hull shader placed by semantic (the assembler's
/// signatures name them TEXCOORD and the patch constants' registers), and the domain
/// shader linked to it by `inputs_from`, control points and patch constants alike.
#[test]
fn hull_and_domain_shaders_follow_the_map() {
    let hs_bytes = assemble(HULL);
    let scanned = crate::scan_bytes(&hs_bytes, &TranslateOptions::default()).expect("scans");
    // Name the elements as the assembler did, to key the map by semantic.
    let name = |s: &Option<crate::container::Signature>, i: usize| {
        let e = &s.as_ref().expect("signature").elements[i];
        (e.semantic_name.clone(), e.semantic_index)
    };
    let (cp0, cp0i) = name(&scanned.outputs, 0);
    let (cp1, cp1i) = name(&scanned.outputs, 1);
    let pcs = scanned.patch_constants.as_ref().expect("patch constants");
    let patch: Vec<_> = pcs
        .elements
        .iter()
        .filter(|e| e.system_value == crate::container::SystemValue::Undefined)
        .map(|e| (e.semantic_name.clone(), e.semantic_index))
        .collect();
    assert_eq!(patch.len(), 2, "{pcs:?}");
    let map = InterfaceMap::from_json(&format!(
        r#"{{ "outputs": [ {{ "semantic": "{cp0}", "index": {cp0i}, "location": 2 }},
                           {{ "semantic": "{cp1}", "index": {cp1i}, "location": 0 }} ],
             "patch_constants": [ {{ "semantic": "{}", "index": {}, "location": 6 }},
                                  {{ "semantic": "{}", "index": {}, "location": 5 }} ],
             "inputs": [ {{ "register": 0, "location": 0 }}, {{ "register": 1, "location": 1 }} ] }}"#,
        patch[0].0, patch[0].1, patch[1].0, patch[1].1
    ))
    .expect("map");
    let hs_options = TranslateOptions {
        interface: Some(map.clone()),
        ..Default::default()
    };
    let hs = translate(HULL, &hs_options);
    let m = module(&hs.words);
    let patches: Vec<u32> = decorations(&m, Decoration::Patch)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let outputs: Vec<_> = locations(&hs.words)
        .into_iter()
        .filter(|l| l.2 == StorageClass::Output)
        .map(|(l, c, _, id)| (l, c, patches.contains(&id)))
        .collect();
    // o1.xy at 0, o0 at 2, vpc4.zw at 5.zw and vpc4.xy at 6 (both Patch).
    assert_eq!(
        outputs,
        vec![(0, 0, false), (2, 0, false), (5, 2, true), (6, 0, true)],
        "{}",
        disassemble(&hs.words)
    );

    let ds_options = TranslateOptions {
        interface: Some(InterfaceMap::inputs_from(&hs.reflection)),
        ..Default::default()
    };
    let ds_bytes = assemble(DOMAIN);
    // The domain shader's own signatures name its elements as the hull shader's do (the
    // assembler derives both from the registers).
    let ds = translate_bytes(&ds_bytes, &ds_options).unwrap_or_else(|e| panic!("translates: {e}"));
    validate(&ds.words);
    let m = module(&ds.words);
    let patches: Vec<u32> = decorations(&m, Decoration::Patch)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let inputs: Vec<_> = locations(&ds.words)
        .into_iter()
        .filter(|l| l.2 == StorageClass::Input)
        .map(|(l, c, _, id)| (l, c, patches.contains(&id)))
        .collect();
    assert_eq!(inputs, outputs, "{}", disassemble(&ds.words));

    // A patch constant on a control point's location is an error naming both.
    let clash = InterfaceMap::from_json(&format!(
        r#"{{ "outputs": [ {{ "register": 0, "location": 0 }}, {{ "register": 1, "location": 1 }} ],
             "patch_constants": [ {{ "semantic": "{}", "index": {}, "location": 1 }},
                                  {{ "semantic": "{}", "index": {}, "location": 5 }} ] }}"#,
        patch[0].0, patch[0].1, patch[1].0, patch[1].1
    ))
    .expect("map");
    let error = translate_bytes(
        &hs_bytes,
        &TranslateOptions {
            interface: Some(clash),
            ..Default::default()
        },
    )
    .expect_err("a clash")
    .to_string();
    assert!(error.contains("share location 1"), "{error}");
}

/// A geometry shader's per-vertex inputs follow the map too.
#[test]
fn geometry_shader_per_vertex_inputs_follow_the_map() {
    let text = "gs_5_0
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xy
dcl_input v[3][1].zw
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_maxout 3
mov o0.xyzw, v[0][0].xyzw
mov o1.xy, v[0][1].xyxx
mov o1.zw, v[1][1].zzzw
emit
ret
";
    let scanned = crate::scan_bytes(&assemble(text), &TranslateOptions::default()).expect("scans");
    let inputs = scanned.inputs.as_ref().expect("inputs");
    let named = |i: usize| {
        let e = &inputs.elements[i];
        (e.semantic_name.clone(), e.semantic_index)
    };
    let (a, ai) = named(1);
    let (b, bi) = named(2);
    let map = InterfaceMap::from_json(&format!(
        r#"{{ "inputs": [ {{ "semantic": "{a}", "index": {ai}, "location": 3 }},
                          {{ "semantic": "{b}", "index": {bi}, "location": 2, "component": 0 }} ] }}"#
    ))
    .expect("map");
    let gs = translate(
        text,
        &TranslateOptions {
            interface: Some(map),
            ..Default::default()
        },
    );
    let inputs = placed(&gs.words, StorageClass::Input);
    assert_eq!(inputs, vec![(2, 0), (3, 0)], "{}", disassemble(&gs.words));
}

/// An entry made in code (not read from JSON) with impossible components is an error, not a
/// panic.
#[test]
fn impossible_entries_made_in_code_are_errors() {
    for (component, vector) in [
        (Some(7), None),
        (None, Some((0, 0))),
        (None, Some((3, 4))),
        (Some(0), Some((2, 2))),
    ] {
        let map = InterfaceMap {
            outputs: Some(vec![
                InterfaceEntry {
                    key: InterfaceKey::Semantic {
                        name: "TEXCOORD".into(),
                        index: 0,
                    },
                    location: u32::MAX,
                    component,
                    vector,
                },
                InterfaceEntry {
                    key: InterfaceKey::Register(1),
                    location: 1,
                    component: None,
                    vector: None,
                },
                InterfaceEntry {
                    key: InterfaceKey::Register(2),
                    location: 2,
                    component: None,
                    vector: None,
                },
            ]),
            ..Default::default()
        };
        let options = TranslateOptions {
            interface: Some(map),
            ..Default::default()
        };
        let error = translate_bytes(&assemble(&format!("{VS_SIGNATURE}{VS}")), &options)
            .expect_err("impossible")
            .to_string();
        assert!(error.contains("TEXCOORD0 (o1.xy)"), "{error}");
    }
}

/// A geometry shader's streams may use the same output registers: their elements do not
/// overlap (only one stream is rasterized), with or without a map.
#[test]
fn streams_of_a_geometry_shader_share_registers() {
    let text = "gs_5_0
dcl_input_siv v[1][0].xyzw, position
dcl_inputprimitive point
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_stream m1
dcl_outputtopology pointlist
dcl_output o1.xy
dcl_maxout 2
mov o0.xyzw, v[0][0].xyzw
mov o1.xyzw, l(1.0, 2.0, 3.0, 4.0)
emit_stream m0
mov o1.xy, l(5.0, 6.0, 0, 0)
emit_stream m1
ret
";
    let t = translate(text, &TranslateOptions::default());
    let outputs = t.reflection.outputs.as_ref().expect("outputs");
    assert_eq!(outputs.elements.len(), 3, "{outputs:?}");
    let named: Vec<_> = outputs
        .elements
        .iter()
        .map(|e| (e.semantic_name.clone(), e.semantic_index, e.stream))
        .collect();
    let stream0 = named
        .iter()
        .find(|n| n.2 == 0 && n.0 != "SV_Position")
        .expect("stream 0");
    let map = InterfaceMap::from_json(&format!(
        r#"{{ "outputs": [ {{ "semantic": "{}", "index": {}, "location": 6 }},
                           {{ "register": 1, "location": 6 }} ] }}"#,
        stream0.0, stream0.1
    ))
    .expect("map");
    let t = translate(
        text,
        &TranslateOptions {
            interface: Some(map),
            ..Default::default()
        },
    );
    let out: Vec<_> = locations(&t.words)
        .into_iter()
        .filter(|l| l.2 == StorageClass::Output)
        .map(|(l, _, _, _)| l)
        .collect();
    assert_eq!(out, vec![6], "{}", disassemble(&t.words));
}

/// Components of a placed two-component element written one by one are held to the end of
/// the block and stored as one vector of two (a `vec4`'s four parts were assumed before).
#[test]
fn component_stores_to_a_narrow_placed_output() {
    let text = format!(
        "{VS_SIGNATURE}vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output o1.zw
dcl_output o2.xyzw
mov o0.xyzw, v0.xyzw
add o1.x, v0.x, l(1.0)
mov o1.y, l(2.0)
mov o1.z, l(3.0)
add o1.w, v0.y, l(4.0)
mov o2.xyzw, l(5.0, 6.0, 7.0, 8.0)
ret
"
    );
    for no_optimize in [false, true] {
        let options = TranslateOptions {
            interface: Some(vs_map()),
            no_optimize,
            ..Default::default()
        };
        // `translate` runs spirv-val.
        translate(&text, &options);
    }
}

/// A domain shader whose control-point signature lacks a register the program declares
/// (`vicp[3][1]`; the signature has register 0 only): patch constants go past the declared
/// register in the module, and the reflection reports the same locations (the two are
/// derived from one [`crate::interface::patch_constant_base`]).
#[test]
fn a_signature_lacking_a_declared_register_places_patch_constants_as_the_module_does() {
    const DAMAGED: &str = "//
// Patch Constant signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_TessFactor            0   x           0 TRIEDGE    float   x
// SV_TessFactor            1   x           1 TRIEDGE    float   x
// SV_TessFactor            2   x           2 TRIEDGE    float   x
// SV_InsideTessFactor      0   x           3   TRIINT   float   x
// PATCH                    0   xyzw        4     NONE   float   xyzw
//
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// TEXCOORD                 0   xyzw        0     NONE   float   xyzw
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xyzw        1     NONE   float   xyzw
//
ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_input vicp[3][1].xyzw
dcl_input vpc4.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, vicp[0][0].xyzw
add o1.xyzw, vicp[1][1].xyzw, vpc4.xyzw
ret
";
    let bytes = assemble(DAMAGED);
    let dxbc = crate::read(&bytes, &crate::ReadOptions::default()).expect("reads");
    let control_points = dxbc.reflection.input.as_ref().expect("an input signature");
    assert_eq!(
        crate::interface::registers_end(Some(control_points)),
        1,
        "the signature lacks register 1: {control_points:?}"
    );
    let translation = translate(DAMAGED, &TranslateOptions::default());
    let m = module(&translation.words);
    let patches: Vec<u32> = decorations(&m, Decoration::Patch)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let module_patch: Vec<u32> = locations(&translation.words)
        .into_iter()
        .filter(|(_, _, class, id)| *class == StorageClass::Input && patches.contains(id))
        .map(|(location, ..)| location)
        .collect();
    assert_eq!(
        module_patch,
        vec![2 + 4],
        "vpc4 past the declared vicp[][1]: {}",
        disassemble(&translation.words)
    );
    let reflected: Vec<(String, u32)> = translation
        .reflection
        .patch_constants
        .as_ref()
        .expect("patch constants")
        .elements
        .iter()
        .zip(&translation.reflection.placements.patch_constants)
        .filter_map(|(e, p)| Some((e.semantic_name.clone(), p.as_ref()?.location)))
        .collect();
    assert_eq!(
        reflected,
        vec![("PATCH".to_string(), 6)],
        "the reflection's patch constants (the module has them at {module_patch:?})"
    );
    // The scan alone reports the same.
    let scanned = crate::scan_bytes(&bytes, &TranslateOptions::default()).expect("scans");
    assert_eq!(scanned.placements, translation.reflection.placements);
}
