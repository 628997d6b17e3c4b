//! Corpus tests for the writing side: containers, signature and RDEF chunks written back
//! from what was parsed, header tables read back from what was printed, and signatures
//! derived from declarations compared with the real ones. Each prints its figures (run with
//! `--nocapture`) and fails when they fall below what was reached.
//!
//! Chunks are written in the style of the compiler that made them (the RDEF creator; fxc
//! when there is no RDEF): the `fxc/` blobs are fxc's, the `shader_test_dxbc/` blobs
//! vkd3d-shader's, except four precompiled ones without an RDEF, which are fxc's.

use super::corpus_tests::dxbc_files;
use super::resources::ShaderType;
use super::{
    write_container, write_rdef_styled, write_signature_styled, Container, ParseOptions,
    ResourceDefinitions, Signature, WriteStyle,
};
use std::path::PathBuf;

/// Every corpus blob: the fxc directory and the vkd3d-compiled shader_test blobs.
fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = dxbc_files("fxc");
    files.extend(dxbc_files("shader_test_dxbc"));
    files
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f, bytes)
        })
        .collect()
}

/// Clears the record offsets, which depend on the layout.
fn normalize(defs: &mut ResourceDefinitions) {
    fn ty(t: &mut ShaderType) {
        t.record_offset = 0;
        t.members.iter_mut().for_each(|m| ty(&mut m.ty));
    }
    for cb in &mut defs.constant_buffers {
        cb.variables.iter_mut().for_each(|v| ty(&mut v.ty));
    }
}

#[test]
fn containers_rewrite_byte_identically() {
    let mut n = 0;
    for (f, bytes) in corpus() {
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let chunks: Vec<([u8; 4], Vec<u8>)> = c
            .chunks
            .iter()
            .map(|ch| (ch.fourcc, ch.data.to_vec()))
            .collect();
        assert!(write_container(&chunks) == bytes, "{}", f.display());
        n += 1;
    }
    println!("containers: {n} of {n} rewritten byte-identically");
}

/// The other layout.
fn other(style: WriteStyle) -> WriteStyle {
    match style {
        WriteStyle::Fxc => WriteStyle::Vkd3d,
        WriteStyle::Vkd3d => WriteStyle::Fxc,
    }
}

#[test]
fn signatures_and_rdef_write_back() {
    let mut sig_total = 0;
    let mut sig_identical = 0;
    let mut rdef_total = 0;
    let mut rdef_identical = 0;
    // Chunks that would also come out identical in the other compiler's style.
    let mut other_style = [0usize; 2];
    let mut differ = Vec::new();
    for (f, bytes) in corpus() {
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let rdef = c
            .find(*b"RDEF")
            .map(|ch| ResourceDefinitions::parse(ch.data).unwrap());
        let style = rdef
            .as_ref()
            .map_or(WriteStyle::Fxc, |r| WriteStyle::for_creator(&r.creator));
        for ch in &c.chunks {
            if Signature::is_signature_chunk(ch.fourcc) {
                let sig = Signature::parse(ch.fourcc, ch.data).unwrap();
                let data = write_signature_styled(&sig, style);
                other_style[0] +=
                    usize::from(write_signature_styled(&sig, other(style)) == ch.data);
                let back = Signature::parse(ch.fourcc, &data).unwrap();
                assert_eq!(back, sig, "{}", f.display());
                sig_total += 1;
                if data == ch.data {
                    sig_identical += 1;
                } else {
                    differ.push(format!(
                        "{} {}",
                        f.display(),
                        String::from_utf8_lossy(&ch.fourcc)
                    ));
                }
            } else if &ch.fourcc == b"RDEF" {
                let Some(defs) = rdef.as_ref() else { continue };
                let data = write_rdef_styled(defs, style);
                other_style[1] += usize::from(write_rdef_styled(defs, other(style)) == ch.data);
                let mut back = ResourceDefinitions::parse(&data)
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
                let mut expect = defs.clone();
                normalize(&mut back);
                normalize(&mut expect);
                assert_eq!(back, expect, "{}", f.display());
                rdef_total += 1;
                if data == ch.data {
                    rdef_identical += 1;
                } else {
                    differ.push(format!("{} RDEF", f.display()));
                }
            }
        }
    }
    println!(
        "signatures: {sig_identical} of {sig_total} byte-identical, {sig_total} equal after re-parse"
    );
    println!(
        "RDEF: {rdef_identical} of {rdef_total} byte-identical, {rdef_total} equal after re-parse"
    );
    println!(
        "written in the other compiler's style instead: {} signatures and {} RDEF chunks \
         identical",
        other_style[0], other_style[1]
    );
    for d in &differ {
        println!("  differs: {d}");
    }
    assert!(sig_total >= 2500, "only {sig_total} signature chunks");
    assert!(rdef_total >= 930, "only {rdef_total} RDEF chunks");
    assert!(differ.is_empty(), "{} chunks differ", differ.len());
}

/// The version line of a container's program, e.g. `ps_5_0`.
fn version_line(c: &Container<'_>) -> Option<String> {
    let code = c.program()?.data;
    let token = u32::from_le_bytes(code.get(..4)?.try_into().ok()?);
    let stage = crate::ir::Stage::from_program_type(token >> 16)?;
    let model = crate::ir::ShaderModel {
        stage,
        major: ((token >> 4) & 0xf) as u8,
        minor: (token & 0xf) as u8,
    };
    Some(model.to_string())
}

/// Counts, per field name, how often a comparison found a difference.
#[derive(Default)]
struct Diffs(std::collections::BTreeMap<String, usize>);

impl Diffs {
    fn check<T: PartialEq>(&mut self, what: &str, a: T, b: T) -> bool {
        if a != b {
            *self.0.entry(what.to_string()).or_default() += 1;
        }
        a == b
    }
}

#[test]
fn header_tables_read_back() {
    use super::{parse_header_comments, write_header_comments, ChunkInfo};
    let mut diffs = Diffs::default();
    let (mut sigs, mut sigs_equal, mut elements, mut fourcc_equal) = (0, 0, 0, 0);
    let (mut bindings, mut bindings_full) = (0, 0);
    let (mut rdefs, mut rdefs_equal, mut buffers, mut buffers_equal) = (0, 0, 0, 0);
    for (f, bytes) in corpus() {
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let r = ChunkInfo::parse(&c).unwrap();
        let mut text = String::new();
        write_header_comments(&r, &mut text);
        if let Some(v) = version_line(&c) {
            text.push_str(&v);
            text.push('\n');
        }
        let t =
            parse_header_comments(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", f.display()));
        let pairs = [
            (&r.input, &t.input),
            (&r.output, &t.output),
            (&r.patch_constant, &t.patch_constant),
        ];
        for (orig, back) in pairs {
            assert_eq!(orig.is_some(), back.is_some(), "{}", f.display());
            let (Some(orig), Some(back)) = (orig, back) else {
                continue;
            };
            sigs += 1;
            fourcc_equal += usize::from(orig.fourcc == back.fourcc);

            assert_eq!(orig.elements.len(), back.elements.len(), "{}", f.display());
            let mut all = true;
            for (a, b) in orig.elements.iter().zip(&back.elements) {
                elements += 1;
                let mut ok = diffs.check("sig.semantic_name", &a.semantic_name, &b.semantic_name);
                ok &= diffs.check("sig.semantic_index", a.semantic_index, b.semantic_index);
                ok &= diffs.check("sig.system_value", a.system_value, b.system_value);
                ok &= diffs.check("sig.component_type", a.component_type, b.component_type);
                ok &= diffs.check("sig.register", a.register, b.register);
                ok &= diffs.check("sig.mask", a.mask, b.mask);
                ok &= diffs.check("sig.rw_mask", a.rw_mask, b.rw_mask);
                ok &= diffs.check("sig.stream", a.stream, b.stream);
                ok &= diffs.check("sig.min_precision", a.min_precision, b.min_precision);
                all &= ok;
            }
            sigs_equal += usize::from(all);
        }
        assert_eq!(
            r.resources.is_some() && !text.is_empty(),
            t.resources.is_some()
                || r.resources.as_ref().is_some_and(|d| {
                    d.creator.is_empty() && d.bindings.is_empty() && d.constant_buffers.is_empty()
                }),
            "{}",
            f.display()
        );
        let (Some(orig), Some(back)) = (&r.resources, &t.resources) else {
            continue;
        };
        rdefs += 1;
        assert_eq!(orig.bindings.len(), back.bindings.len(), "{}", f.display());
        for (a, b) in orig.bindings.iter().zip(&back.bindings) {
            bindings += 1;
            let key = |x: &super::ResourceBinding| {
                (
                    x.name.clone(),
                    x.input_type,
                    x.return_type,
                    x.dimension,
                    x.bind_point,
                    x.bind_count,
                    x.space,
                    x.id,
                )
            };
            assert_eq!(key(a), key(b), "{}", f.display());
            diffs.check("binding.flags", a.flags, b.flags);
            diffs.check("binding.sample_count", a.sample_count, b.sample_count);
            bindings_full += usize::from(a == b);
        }
        assert_eq!(
            orig.constant_buffers.len(),
            back.constant_buffers.len(),
            "{}",
            f.display()
        );
        let mut o = orig.clone();
        let mut b = back.clone();
        normalize(&mut o);
        normalize(&mut b);
        for (x, y) in o.constant_buffers.iter().zip(&b.constant_buffers) {
            buffers += 1;
            diffs.check("cbuffer.name", &x.name, &y.name);
            diffs.check("cbuffer.kind", x.kind, y.kind);
            diffs.check("cbuffer.size", x.size, y.size);
            diffs.check("cbuffer.flags", x.flags, y.flags);
            assert_eq!(x.variables.len(), y.variables.len(), "{}", f.display());
            for (v, w) in x.variables.iter().zip(&y.variables) {
                diffs.check("var.name", &v.name, &w.name);
                diffs.check("var.start_offset", v.start_offset, w.start_offset);
                diffs.check("var.size", v.size, w.size);
                diffs.check("var.flags", v.flags, w.flags);
                diffs.check("var.default_value", &v.default_value, &w.default_value);
                diffs.check(
                    "var.texture_slots",
                    (v.texture_start, v.texture_size),
                    (w.texture_start, w.texture_size),
                );
                diffs.check(
                    "var.sampler_slots",
                    (v.sampler_start, v.sampler_size),
                    (w.sampler_start, w.sampler_size),
                );
                diffs.check("var.type", &v.ty, &w.ty);
            }
            buffers_equal += usize::from(x == y);
        }
        diffs.check(
            "rdef.version",
            (o.major, o.minor, o.program_type),
            (b.major, b.minor, b.program_type),
        );
        diffs.check("rdef.flags", o.flags, b.flags);
        diffs.check("rdef.creator", &o.creator, &b.creator);
        diffs.check("rdef.rd11", o.rd11, b.rd11);
        diffs.check("rdef.has_spaces", o.has_spaces, b.has_spaces);
        rdefs_equal += usize::from(o == b);
    }
    println!("signatures: {sigs_equal} of {sigs} recovered in every element field ({elements} elements); chunk code recovered for {fourcc_equal}");
    println!("bindings: {bindings} of {bindings} equal in name/type/return type/dimension/bind point/count/space/id, {bindings_full} in every field");
    println!("constant buffers: {buffers_equal} of {buffers} equal in every field");
    println!("RDEF: {rdefs_equal} of {rdefs} equal in every field");
    for (field, n) in &diffs.0 {
        println!("  {field}: {n} differ");
    }
    assert!(sigs >= 2500 && rdefs >= 900);
    assert_eq!(sigs_equal, sigs);
    assert!(fourcc_equal + 1 >= sigs);
    // Only fields the tables do not print may differ (see `header_parse`'s documentation).
    let allowed = [
        "binding.flags",
        "rdef.flags",
        "var.sampler_slots",
        "var.texture_slots",
        "var.type",
    ];
    for field in diffs.0.keys() {
        assert!(
            allowed.contains(&field.as_str()),
            "{field} was not recovered"
        );
    }
    assert!(diffs.0.get("var.type").copied().unwrap_or(0) <= 5);
    assert!(rdefs_equal + 60 >= rdefs && buffers_equal + 45 >= buffers);
}

#[test]
fn derived_signatures_agree_with_real_ones() {
    use super::{signatures_from_program, ChunkInfo, SignatureElement};
    // Register-less elements (oDepth, oMask, …) are told apart by name.
    let key = |e: &SignatureElement| {
        let name = if e.register == u32::MAX {
            e.semantic_name.to_ascii_uppercase()
        } else {
            String::new()
        };
        (e.stream, e.register, e.mask, e.system_value.raw(), name)
    };
    let (mut sigs, mut sigs_same) = (0, 0);
    let (mut real_elements, mut found, mut extra) = (0, 0, 0);
    let (mut rw_same, mut type_same, mut name_same, mut sv_named) = (0, 0, 0, 0);
    let mut programs = 0;
    for (f, bytes) in corpus() {
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let Some(chunk) = c.program() else { continue };
        let program =
            crate::tpf::decode(chunk.data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let r = ChunkInfo::parse(&c).unwrap();
        let (input, output, patch) = signatures_from_program(&program);
        programs += 1;
        let pairs = [
            (&r.input, Some(input)),
            (&r.output, Some(output)),
            (&r.patch_constant, patch),
        ];
        for (real, derived) in pairs {
            let (Some(real), Some(derived)) = (real, derived) else {
                continue;
            };
            sigs += 1;
            let mut a: Vec<_> = real.elements.iter().map(key).collect();
            let mut b: Vec<_> = derived.elements.iter().map(key).collect();
            a.sort();
            b.sort();
            sigs_same += usize::from(a == b);

            for e in &real.elements {
                real_elements += 1;
                let Some(d) = derived.elements.iter().find(|d| key(d) == key(e)) else {
                    continue;
                };
                found += 1;
                rw_same += usize::from(d.rw_mask == e.rw_mask);
                type_same += usize::from(d.component_type == e.component_type);

                if e.system_value != super::SystemValue::Undefined {
                    sv_named += 1;
                    name_same += usize::from(
                        d.semantic_name.eq_ignore_ascii_case(&e.semantic_name)
                            && d.semantic_index == e.semantic_index,
                    );
                }
            }
            extra += derived
                .elements
                .iter()
                .filter(|d| !real.elements.iter().any(|e| key(e) == key(d)))
                .count();
        }
    }
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    println!("derived signatures over {programs} programs:");
    println!("  {sigs_same} of {sigs} signatures agree on every element's stream/register/mask/system value (and name, for register-less ones) ({:.1}%)", pct(sigs_same, sigs));
    println!("  {found} of {real_elements} real elements derived ({:.1}%); {extra} derived elements not in the real signature", pct(found, real_elements));
    println!("  of the derived ones: read/write mask agrees for {rw_same} ({:.1}%), component type for {type_same} ({:.1}%), system-value semantic name and index for {name_same} of {sv_named} ({:.1}%)", pct(rw_same, found), pct(type_same, found), pct(name_same, sv_named));
    assert!(programs >= 1200);
    // Declarations cannot show inputs the program never reads, the system values of
    // domain-shader control points, or full masks of partly declared registers; this
    // guards the agreement reached (93.7% of signatures, 86.8% of elements).
    assert!(pct(sigs_same, sigs) >= 93.0, "{sigs_same} of {sigs}");
    assert!(
        pct(found, real_elements) >= 86.0,
        "{found} of {real_elements}"
    );
    assert!(pct(rw_same, found) >= 99.0 && pct(type_same, found) >= 94.0);
}
