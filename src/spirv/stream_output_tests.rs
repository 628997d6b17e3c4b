//! Tests of stream output (transform feedback): the decorations of the capture variables,
//! the copies at emit and at the end of a vertex shader, the errors that name an entry, and
//! the JSON form. Every module is checked with spirv-val.

use rspirv::binary::Disassemble;
use rspirv::dr::{Module as SpvModule, Operand as SpvOperand};
use spirv::{Capability, Decoration, ExecutionMode, Op};

use super::test_support::decorations;
use crate::spirv::{StreamOutput, StreamOutputEntry, TargetEnv};
use crate::TranslateOptions as Options;

const GS: &str = include_str!("../../tests/in/gs_stream_output.asm");
const GS_LAYOUT: &str = include_str!("../../tests/in/gs_stream_output.json");

const VS: &str = "vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.wzyx
ret
";

/// Assembles `text` (with its header tables), translates it with `layout` for every target
/// and validates each module; returns the Vulkan 1.3 module.
fn compile(text: &str, layout: Option<StreamOutput>) -> SpvModule {
    let bytes = crate::asm::assemble(text).expect("assembles");
    let dxbc = crate::read(&bytes, &crate::ReadOptions::default()).expect("reads");
    let mut last = Vec::new();
    for target in [
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ] {
        let options = Options {
            target,
            debug_names: true,
            stream_output: layout.clone(),
            ..Options::default()
        };
        // The tests look at the lowering, as the emitter writes it.
        last = super::test_support::lowered_with(&options, |o| dxbc.translate(o))
            .unwrap_or_else(|e| panic!("{text}\nwith {layout:?}\ndoes not translate: {e}"));
    }
    rspirv::dr::load_words(&last).expect("loads")
}

fn error(text: &str, layout: StreamOutput) -> String {
    let bytes = crate::asm::assemble(text).expect("assembles");
    let dxbc = crate::read(&bytes, &crate::ReadOptions::default()).expect("reads");
    let options = Options {
        stream_output: Some(layout.clone()),
        ..Options::default()
    };
    match dxbc.translate(&options) {
        Ok(_) => panic!("{text}\nwith {layout:?}\ntranslated, expected an error"),
        Err(e) => e.to_string(),
    }
}

/// The id named `name` (debug names are on).
fn named(module: &SpvModule, name: &str) -> Option<u32> {
    module
        .debug_names
        .iter()
        .find_map(|i| match (i.operands.first(), i.operands.get(1)) {
            (Some(SpvOperand::IdRef(id)), Some(SpvOperand::LiteralString(n))) if n == name => {
                Some(*id)
            }
            _ => None,
        })
}

fn decorated(module: &SpvModule, id: u32, decoration: Decoration) -> Option<Vec<u32>> {
    decorations(module, decoration)
        .into_iter()
        .find(|(t, _)| *t == id)
        .map(|(_, v)| v)
}

/// Checks XfbBuffer, XfbStride, Offset and Stream of the capture variable of entry `entry`.
fn check_capture(module: &SpvModule, shader: &str, entry: usize, expected: [Option<u32>; 4]) {
    let text = module.disassemble();
    let var = named(module, &format!("xfb{entry}"))
        .unwrap_or_else(|| panic!("{shader}\nentry {entry}: no variable xfb{entry}\n{text}"));
    let kinds = [
        Decoration::XfbBuffer,
        Decoration::XfbStride,
        Decoration::Offset,
        Decoration::Stream,
    ];
    for (decoration, want) in kinds.into_iter().zip(expected) {
        let got = decorated(module, var, decoration).and_then(|v| v.first().copied());
        assert_eq!(
            got, want,
            "{shader}\nentry {entry}: {decoration:?}: expected {want:?}, got {got:?}\n{text}"
        );
    }
}

fn has_capability(module: &SpvModule, capability: Capability) -> bool {
    module
        .capabilities
        .iter()
        .any(|i| matches!(i.operands.first(), Some(SpvOperand::Capability(c)) if *c == capability))
}

fn has_mode(module: &SpvModule, mode: ExecutionMode) -> bool {
    module
        .execution_modes
        .iter()
        .any(|i| matches!(i.operands.get(1), Some(SpvOperand::ExecutionMode(m)) if *m == mode))
}

/// Stores whose pointer is `var` or an access chain into it.
fn stores_into(module: &SpvModule, var: u32) -> usize {
    let instructions: Vec<_> = module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter())
        .collect();
    let chains: Vec<u32> = instructions
        .iter()
        .filter(|i| i.class.opcode == Op::AccessChain)
        .filter(|i| matches!(i.operands.first(), Some(SpvOperand::IdRef(b)) if *b == var))
        .filter_map(|i| i.result_id)
        .collect();
    instructions
        .iter()
        .filter(|i| i.class.opcode == Op::Store)
        .filter(|i| {
            matches!(i.operands.first(), Some(SpvOperand::IdRef(p)) if *p == var || chains.contains(p))
        })
        .count()
}

#[test]
fn two_streams_get_xfb_decorations_packed_as_d3d_packs_them() {
    let layout = StreamOutput::from_json(GS_LAYOUT).expect("layout");
    let module = compile(GS, Some(layout));
    let text = module.disassemble();
    assert!(
        has_capability(&module, Capability::TransformFeedback),
        "{GS}\nno TransformFeedback capability\n{text}"
    );
    assert!(
        has_mode(&module, ExecutionMode::Xfb),
        "{GS}\nno Xfb mode\n{text}"
    );
    // Slot 0 (stream 0): SV_Position (16 bytes), COLOR.yz at 16; packed stride 24.
    check_capture(&module, GS, 0, [Some(0), Some(24), Some(0), Some(0)]);
    check_capture(&module, GS, 1, [Some(0), Some(24), Some(16), Some(0)]);
    // Slot 1 (stream 1): TEXCOORD1 at 0, a 4-byte gap, TEXCOORD2 at 20; stride 32 as given.
    check_capture(&module, GS, 2, [Some(1), Some(32), Some(0), Some(1)]);
    check_capture(&module, GS, 4, [Some(1), Some(32), Some(20), Some(1)]);
    assert_eq!(
        named(&module, "xfb3"),
        None,
        "{GS}\nentry 3 is a gap and gets no variable\n{text}"
    );
    // Stream 1's entries are written once per emit_stream m1 (two), stream 0's once.
    for (entry, emits) in [(0, 1), (1, 1), (2, 2), (4, 2)] {
        let var = named(&module, &format!("xfb{entry}")).expect("variable");
        let components = [4, 2, 4, 0, 2][entry];
        let got = stores_into(&module, var);
        assert_eq!(
            got,
            emits * components,
            "{GS}\nentry {entry}: expected {} component stores, got {got}\n{text}",
            emits * components
        );
    }
    // The Private copy of stream 1's o2 is written by the program.
    let shadow = named(&module, "o2_streams").expect("o2 is kept for stream output");
    assert_eq!(stores_into(&module, shadow), 4, "{GS}\no2 stores\n{text}");
}

#[test]
fn without_a_layout_stream_one_registers_are_dropped() {
    let module = compile(GS, None);
    let text = module.disassemble();
    assert!(
        !has_capability(&module, Capability::TransformFeedback),
        "{GS}\nTransformFeedback without a layout\n{text}"
    );
    assert_eq!(named(&module, "o2_streams"), None, "{GS}\n{text}");
    assert!(
        decorations(&module, Decoration::XfbBuffer).is_empty(),
        "{text}"
    );
}

#[test]
fn a_vertex_shader_is_captured_at_its_end() {
    let layout = StreamOutput {
        entries: vec![
            StreamOutputEntry {
                stream: 0,
                semantic_name: Some("texcoord".into()),
                semantic_index: 0,
                start_component: 2,
                component_count: 2,
                output_slot: 2,
            },
            StreamOutputEntry {
                stream: 0,
                semantic_name: Some("SV_POSITION".into()),
                semantic_index: 0,
                start_component: 0,
                component_count: 1,
                output_slot: 2,
            },
        ],
        strides: [0, 0, 16, 0],
        rasterized_stream: Some(0),
    };
    let module = compile(VS, Some(layout));
    check_capture(&module, VS, 0, [Some(2), Some(16), Some(0), None]);
    check_capture(&module, VS, 1, [Some(2), Some(16), Some(8), None]);
    let text = module.disassemble();
    for (entry, components) in [(0, 2), (1, 1)] {
        let var = named(&module, &format!("xfb{entry}")).expect("variable");
        let got = stores_into(&module, var);
        assert_eq!(
            got, components,
            "{VS}\nentry {entry}: expected {components} stores, got {got}\n{text}"
        );
    }
}

fn entry(
    stream: u32,
    semantic: Option<&str>,
    index: u32,
    start: u8,
    count: u8,
    slot: u32,
) -> StreamOutputEntry {
    StreamOutputEntry {
        stream,
        semantic_name: semantic.map(str::to_string),
        semantic_index: index,
        start_component: start,
        component_count: count,
        output_slot: slot,
    }
}

#[test]
fn errors_name_the_entry() {
    let layout = |entries: Vec<StreamOutputEntry>, strides: [u32; 4]| StreamOutput {
        entries,
        strides,
        rasterized_stream: Some(0),
    };
    let cases = [
        (
            VS,
            layout(vec![entry(0, Some("TEXCOORD"), 0, 0, 4, 0), entry(0, Some("NORMAL"), 0, 0, 3, 0)], [0; 4]),
            "entry 1 (stream 0 NORMAL0): the output signature has no NORMAL0 in stream 0",
        ),
        (
            VS,
            layout(vec![entry(0, Some("TEXCOORD"), 0, 2, 3, 0)], [0; 4]),
            "entry 0 (stream 0 TEXCOORD0): components 2 to 4 are out of range",
        ),
        (
            GS,
            layout(vec![entry(1, Some("TEXCOORD"), 2, 1, 2, 0)], [0; 4]),
            "entry 0 (stream 1 TEXCOORD2): components 1 to 2 are out of range: the element has 2 (xy)",
        ),
        (
            GS,
            layout(vec![entry(0, Some("TEXCOORD"), 1, 0, 4, 0)], [0; 4]),
            "entry 0 (stream 0 TEXCOORD1): the output signature has no TEXCOORD1 in stream 0",
        ),
        (
            GS,
            layout(vec![entry(0, Some("COLOR"), 0, 0, 4, 0), entry(1, None, 0, 0, 1, 0)], [0; 4]),
            "entry 1 (stream 1 gap): output slot 0 already holds stream 0",
        ),
        (
            GS,
            layout(vec![entry(2, Some("COLOR"), 0, 0, 4, 0)], [0; 4]),
            "entry 0 (stream 2 COLOR0): the gs shader declares no stream 2",
        ),
        (
            VS,
            layout(vec![entry(0, Some("TEXCOORD"), 0, 0, 4, 1)], [0, 12, 0, 0]),
            "the stride of output slot 1 is 12 bytes",
        ),
        (
            "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0, 0, 0, 0)\nret\n",
            layout(vec![entry(0, Some("SV_Target"), 0, 0, 4, 0)], [0; 4]),
            "a ps shader has no stream output",
        ),
    ];
    for (shader, layout, expected) in cases {
        let got = error(shader, layout.clone());
        assert!(
            got.contains(expected),
            "{shader}\nwith {layout:?}\nexpected an error containing: {expected}\ngot: {got}"
        );
    }
    let other = StreamOutput {
        rasterized_stream: Some(2),
        ..StreamOutput::default()
    };
    let got = error(GS, other);
    assert!(
        got.contains("the rasterized stream is 2, but the gs shader declares no stream 2"),
        "{GS}\nrasterized stream 2: got {got}"
    );
}

/// The Output variable at `location` (not a capture variable).
fn at_location(module: &SpvModule, location: u32) -> Option<u32> {
    decorations(module, Decoration::Location)
        .into_iter()
        .find(|(_, v)| v.first() == Some(&location))
        .map(|(id, _)| id)
}

#[test]
fn rasterizing_stream_one_gives_its_registers_the_locations() {
    let layout = StreamOutput {
        entries: vec![
            entry(0, Some("SV_Position"), 0, 0, 4, 0),
            entry(0, Some("COLOR"), 0, 0, 2, 0),
        ],
        strides: [0; 4],
        rasterized_stream: Some(1),
    };
    let module = compile(GS, Some(layout));
    let text = module.disassemble();
    // Stream 1's o0 (TEXCOORD1) and o2 (TEXCOORD2) are the Output variables at their
    // registers, decorated Stream 1; stream 0's position is no built-in but captured.
    for location in [0, 2] {
        let var = at_location(&module, location)
            .unwrap_or_else(|| panic!("{GS}\nno Output at Location {location}\n{text}"));
        let stream = decorated(&module, var, Decoration::Stream);
        assert_eq!(
            stream,
            Some(vec![1]),
            "{GS}\nLocation {location}: expected Stream [1], got {stream:?}\n{text}"
        );
    }
    let positions = decorations(&module, Decoration::BuiltIn)
        .into_iter()
        .filter(|(_, v)| v.first() == Some(&(spirv::BuiltIn::Position as u32)))
        .count();
    assert_eq!(
        positions, 1,
        "{GS}\nstream 0's position is not rasterized: only the input is a Position built-in, \
         got {positions}\n{text}"
    );
    check_capture(&module, GS, 0, [Some(0), Some(24), Some(0), Some(0)]);
    check_capture(&module, GS, 1, [Some(0), Some(24), Some(16), Some(0)]);
    // Stream 0's o0 is read from stream 1's o0 variable; its o1 gets a Private copy.
    let shadow = named(&module, "o1_streams").expect("stream 0's o1 is kept for capture");
    assert_eq!(stores_into(&module, shadow), 4, "{GS}\no1 stores\n{text}");
}

#[test]
fn the_json_form() {
    let layout = StreamOutput::from_json(GS_LAYOUT).expect("layout");
    let expected = StreamOutput {
        entries: vec![
            entry(0, Some("SV_Position"), 0, 0, 4, 0),
            entry(0, Some("COLOR"), 0, 1, 2, 0),
            entry(1, Some("TEXCOORD"), 1, 0, 4, 1),
            entry(1, None, 0, 0, 1, 1),
            entry(1, Some("TEXCOORD"), 2, 0, 2, 1),
        ],
        strides: [0, 32, 0, 0],
        rasterized_stream: Some(0),
    };
    assert_eq!(layout, expected, "{GS_LAYOUT}");
    let none = StreamOutput::from_json(r#"{"entries": [], "rasterized_stream": null}"#)
        .expect("no rasterized stream");
    assert_eq!(none.rasterized_stream, None);
    for (bad, message) in [
        (
            r#"{"entries": [{"slot": 0}]}"#,
            "entries[0]: \"count\" is required",
        ),
        (
            r#"{"entries": [], "stride": [4]}"#,
            "unknown key \"stride\"",
        ),
        (
            r#"{"strides": [4, 4, 4, 4, 4]}"#,
            "strides must be an array of at most 4",
        ),
        (
            r#"{"rasterized_stream": 4}"#,
            "rasterized_stream must be 0-3 or null",
        ),
    ] {
        let got = StreamOutput::from_json(bad).expect_err(bad).to_string();
        assert!(
            got.contains(message),
            "{bad}: expected an error containing {message}, got {got}"
        );
    }
}
