//! The command's SPIR-V printer (`dxbc2spirv::spirv::text`, behind `translate --text`) must
//! print every module exactly as rspirv's disassembler does (the reference it replaces in the
//! command, where rspirv's grammar tables would cost memory at every start).
//!
//! Every blob of the corpus (`../shared/corpus`: fxc and shader_test_dxbc) is translated with
//! debug names, with and without the optimiser, and printed both ways; the test fails on the
//! first module whose texts differ, with the blob, the options and the first differing line.

mod common;

use rspirv::binary::Disassemble;

#[test]
fn the_printer_prints_every_corpus_module_as_rspirv_does() {
    let printed = common::for_each_corpus_module(|file, _, no_optimize, words| {
        let reference = rspirv::dr::load_words(&words)
            .unwrap_or_else(|e| panic!("{}: rspirv cannot load the module: {e}", file))
            .disassemble();
        let ours = dxbc2spirv::spirv::text::disassemble(&words)
            .unwrap_or_else(|e| panic!("{} (no_optimize: {no_optimize}): {e}", file));
        if ours != reference {
            let line = reference
                .lines()
                .zip(ours.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(reference.lines().count().min(ours.lines().count()));
            panic!(
                "{} (no_optimize: {no_optimize}): line {} differs\n  rspirv: {:?}\n  ours:   {:?}",
                file,
                line + 1,
                reference.lines().nth(line),
                ours.lines().nth(line)
            );
        }
    });
    assert!(printed > 2000, "only {printed} modules printed");
}
