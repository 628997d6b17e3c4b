//! Corpus tests: every shader_test file parses, the manifest agrees, no input panics.

use std::collections::HashMap;
use std::path::Path;

use super::*;

const CORPUS: &str = "/work/shared/corpus";

fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(CORPUS).join("shader_test");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus missing at {}: {e}", dir.display()));
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .filter(|(n, _)| n.ends_with(".shader_test"))
        .collect();
    files.sort();
    assert!(files.len() >= 200, "corpus has only {} files", files.len());
    files
}

#[test]
fn every_corpus_file_parses() {
    let mut sections = 0;
    let mut commands = 0;
    let mut other = 0;
    for (name, bytes) in corpus_files() {
        let file = ShaderTestFile::parse_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for s in &file.sections {
            if let SectionKind::Shader(sh) = &s.kind {
                assert!(
                    !sh.qualifiers
                        .iter()
                        .any(|q| matches!(q, Qualifier::Other(_))),
                    "{name}:{} unknown qualifier",
                    s.line
                );
            }
            assert!(
                !matches!(s.kind, SectionKind::Unknown),
                "{name}:{} unknown section {}",
                s.line,
                s.header
            );
            if let SectionKind::Resource(r) = &s.kind {
                if let Some(f) = &r.format {
                    assert!(format_info(f).is_some(), "{name}:{} format {f}", s.line);
                }
            }
            if let SectionKind::InputLayout(elements) = &s.kind {
                for e in elements {
                    assert!(
                        format_info(&e.format).is_some(),
                        "{name}:{} format {}",
                        s.line,
                        e.format
                    );
                }
            }
            if let SectionKind::Test(lines) = &s.kind {
                commands += lines.len();
                other += lines
                    .iter()
                    .filter(|l| matches!(l.command, Command::Other(_)))
                    .count();
            }
        }
        sections += file.sections.len();
    }
    eprintln!("sections {sections}, test commands {commands}, kept raw {other}");
}

#[test]
fn manifest_agrees() {
    let manifest_path = Path::new(CORPUS).join("shader_test_dxbc/MANIFEST.tsv");
    let text =
        std::fs::read_to_string(&manifest_path).unwrap_or_else(|e| panic!("manifest missing: {e}"));
    let rows = read_manifest(&text).unwrap();
    assert!(rows.len() > 1500);
    let mut by_key: HashMap<(String, u32), &ManifestRow> = HashMap::new();
    for row in &rows {
        by_key.insert((row.test_file.clone(), row.line), row);
    }
    let mut checked = 0;
    let mut hex_checked = 0;
    let files = corpus_files();
    for (name, bytes) in &files {
        let file = ShaderTestFile::parse_bytes(bytes).unwrap();
        for (section, state) in file.sections_with_require() {
            let SectionKind::Shader(shader) = &section.kind else {
                continue;
            };
            let row = by_key.remove(&(name.clone(), section.line));
            let Some(prof) = profile(shader, &state) else {
                assert!(
                    row.is_none(),
                    "{name}:{} has a manifest row but no profile",
                    section.line
                );
                continue;
            };
            let row = row.unwrap_or_else(|| panic!("{name}:{} has no manifest row", section.line));
            assert_eq!(row.section_header, section.header);
            assert_eq!(row.profile, prof, "{name}:{}", section.line);
            let model = section_model(shader, &state).unwrap();
            assert_eq!(
                row.expected_fxc,
                expected_fxc(&shader.qualifiers, model).as_str(),
                "{name}:{} {}",
                section.line,
                section.header
            );
            let todo = if is_todo(&shader.qualifiers, model) {
                "todo"
            } else {
                "-"
            };
            assert_eq!(row.todo, todo, "{name}:{} {}", section.line, section.header);
            let opts = if state.options.is_empty() {
                "-".to_string()
            } else {
                state.options.join(" ")
            };
            assert_eq!(row.require_options, opts, "{name}:{}", section.line);
            if let Some(blob) = row.blob_file() {
                assert_eq!(
                    blob,
                    blob_name(section, &prof, &state.options),
                    "{name}:{}",
                    section.line
                );
                if shader.format() == SourceFormat::DxbcTpfHex {
                    let want = std::fs::read(Path::new(CORPUS).join("shader_test_dxbc").join(blob))
                        .unwrap();
                    assert_eq!(
                        decode_hex(&shader.source).unwrap(),
                        want,
                        "{name}:{}",
                        section.line
                    );
                    hex_checked += 1;
                }
            }
            checked += 1;
        }
    }
    for row in rows.iter().filter(|r| r.test_file == "shader_runner.c") {
        assert_eq!(row.blob, default_vertex_shader_blob(&row.profile));
        by_key.remove(&(row.test_file.clone(), row.line));
        checked += 1;
    }
    let present: Vec<_> = by_key
        .keys()
        .filter(|(f, _)| files.iter().any(|(n, _)| n == f))
        .collect();
    assert!(
        present.is_empty(),
        "manifest rows with no section: {present:?}"
    );
    eprintln!(
        "manifest rows agreeing: {checked} of {} ({hex_checked} hex)",
        rows.len()
    );
    assert!(checked > 1000);
}

/// A small deterministic generator (xorshift) for mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % (n.max(1) as u64)) as usize
    }
}

#[test]
fn mutated_files_never_panic() {
    let alphabet = b"[]() ,.-+%0123456789abcdefx\n\t|&!<>=:smtodoifailprobeuniform";
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for (_, bytes) in corpus_files().iter() {
        for _ in 0..40 {
            let mut m = bytes.clone();
            for _ in 0..1 + rng.below(8) {
                if m.is_empty() {
                    break;
                }
                let at = rng.below(m.len());
                match rng.below(4) {
                    0 => m[at] = alphabet[rng.below(alphabet.len())],
                    1 => {
                        m.remove(at);
                    }
                    2 => m.insert(at, alphabet[rng.below(alphabet.len())]),
                    _ => m.truncate(at),
                }
            }
            let _ = ShaderTestFile::parse_bytes(&m);
        }
    }
    for text in [
        "",
        "[",
        "[]",
        "[test]\nprobe",
        "[srv]\n",
        "[pixel shader todo(]",
        "\u{1}",
        "[test]\nuniform 0 float4 1 2",
    ] {
        let _ = ShaderTestFile::parse(text);
    }
    let _ = ShaderTestFile::parse_bytes(&[0xff, 0xfe]);
}

#[test]
fn sections_and_hash() {
    let text = "% comment\n[require]\nshader model >= 5.0\nshader model < 6.0\noptions: row-major backcompat\nfloat64\nformat r32-float uav-load\nsomething odd here\n\n[pixel shader todo(sm<6) fail(sm>=6) dxbc-tpf-hex]\n% c\n00000001\n\n[effect fail]\nx\n[srv 2]\nsize (buffer, 2)\n1 2\n[test]\ntodo draw quad\nfrobnicate 3\n";
    let file = ShaderTestFile::parse(text).unwrap();
    assert_eq!(file.sections.len(), 5);
    let SectionKind::Require(req) = &file.sections[0].kind else {
        panic!()
    };
    assert_eq!(file.sections[0].line, 2);
    let items: Vec<_> = req.iter().map(|r| r.item.clone()).collect();
    assert_eq!(
        items[0],
        RequireItem::MinShaderModel(ShaderModel::new(5, 0))
    );
    assert_eq!(
        items[1],
        RequireItem::MaxShaderModel(ShaderModel::new(6, 0))
    );
    assert_eq!(
        items[2],
        RequireItem::Options(vec!["row-major".into(), "backcompat".into()])
    );
    assert_eq!(items[3], RequireItem::Feature("float64".into()));
    assert!(
        matches!(&items[4], RequireItem::Format { name, caps } if name == "r32-float" && caps.len() == 1)
    );
    assert_eq!(items[5], RequireItem::Raw("something odd here".into()));
    let state = RequireState::from_require(req);
    let section = &file.sections[1];
    assert_eq!(section.line, 10);
    assert_eq!(section.raw_body, "% c\n00000001\n\n");
    let SectionKind::Shader(shader) = &section.kind else {
        panic!()
    };
    assert_eq!(shader.format(), SourceFormat::DxbcTpfHex);
    assert_eq!(shader.source, "00000001\n");
    assert_eq!(decode_hex(&shader.source).unwrap(), vec![1, 0, 0, 0]);
    assert_eq!(profile(shader, &state).as_deref(), Some("ps_5_0"));
    let model = ShaderModel::new(5, 0);
    assert!(is_todo(&shader.qualifiers, model));
    assert_eq!(expected_fxc(&shader.qualifiers, model), ExpectedFxc::Ok);
    assert_eq!(
        expected_fxc(&shader.qualifiers, ShaderModel::new(6, 0)),
        ExpectedFxc::Fail
    );
    let name = blob_name(section, "ps_5_0", &state.options);
    assert!(
        name.ends_with(".ps_5_0.backcompat+row-major.dxbc"),
        "{name}"
    );
    assert_eq!(name.len(), 64 + ".ps_5_0.backcompat+row-major.dxbc".len());
    let SectionKind::Shader(effect) = &file.sections[2].kind else {
        panic!()
    };
    assert_eq!(effect.stage, Stage::Effect);
    assert_eq!(profile(effect, &state), None);
    let SectionKind::Resource(res) = &file.sections[3].kind else {
        panic!()
    };
    assert_eq!(
        (res.kind, res.slot, res.words()),
        (ResourceKind::Srv, 2, vec![1, 2])
    );
    let SectionKind::Test(lines) = &file.sections[4].kind else {
        panic!()
    };
    assert_eq!(lines[0].command, Command::DrawQuad);
    assert_eq!(lines[1].command, Command::Other("frobnicate 3".into()));
    assert_eq!(lines[1].line, 21);
    // Hull shaders start at 5.0; SM1-3-only sections and SM6 sections are skipped.
    let hull = ShaderSection {
        stage: Stage::Hull,
        qualifiers: vec![],
        source: String::new(),
    };
    assert_eq!(
        profile(&hull, &RequireState::default()).as_deref(),
        Some("hs_5_0")
    );
    let low = RequireState {
        max: Some(ShaderModel::new(4, 0)),
        ..RequireState::default()
    };
    assert_eq!(profile(&hull, &low), None);
    assert!(ShaderTestFile::parse("text\n[test]\n").is_err());
    assert!(ShaderTestFile::parse("[srv x]\n").is_err());
    assert!(decode_hex("0000001").is_err());
}

#[test]
fn stream_output_sections_and_probes() {
    let text = "[stream output]\n0 SV_Position 0 xyzw slot 0 % comment\n1 TEXCOORD 2 yz slot 1\n\
                1 gap 6 slot 1\nstride 1 40\nbuffer 1 80\nrasterized stream none\n\
                [test]\nprobe so 1 (2, 3) u32(5, 7)\nprobe so 0 (1) f32(0.5) 2\n";
    let file = ShaderTestFile::parse(text).expect("parses");
    let SectionKind::StreamOutput(so) = &file.sections[0].kind else {
        panic!(
            "{text}\nexpected a stream output section, got {:?}",
            file.sections[0].kind
        );
    };
    assert_eq!(so.stage, Stage::Geometry, "{text}");
    let entries: Vec<_> = so
        .layout
        .entries
        .iter()
        .map(|e| {
            (
                e.stream,
                e.semantic_name.as_deref(),
                e.semantic_index,
                e.start_component,
                e.component_count,
                e.output_slot,
            )
        })
        .collect();
    assert_eq!(
        entries,
        vec![
            (0, Some("SV_Position"), 0, 0, 4, 0),
            (1, Some("TEXCOORD"), 2, 1, 2, 1),
            (1, None, 0, 0, 6, 1),
        ],
        "{text}"
    );
    assert_eq!(so.layout.strides, [0, 40, 0, 0], "{text}");
    assert_eq!(
        so.layout.stride(0),
        16,
        "{text}: the packed stride of slot 0"
    );
    assert_eq!(so.layout.rasterized_stream, None, "{text}");
    assert_eq!(so.buffers, vec![(1, 80)], "{text}");
    let SectionKind::Test(lines) = &file.sections[1].kind else {
        panic!("{text}\nexpected a test section");
    };
    assert_eq!(
        lines[0].command,
        Command::ProbeStreamOutput {
            slot: 1,
            vertex: 2,
            word: 3,
            values: ProbeValues::U32(vec![5, 7]),
            ulp: 0,
        },
        "{text}"
    );
    assert_eq!(
        lines[1].command,
        Command::ProbeStreamOutput {
            slot: 0,
            vertex: 1,
            word: 0,
            values: ProbeValues::F32(vec![0.5]),
            ulp: 2,
        },
        "{text}"
    );
    for bad in [
        "[stream output]\n0 COLOR 0 xz slot 0\n",
        "[stream output]\n0 COLOR 0 xyzw slot 4\n",
        "[stream output]\nstride x 4\n",
        "[stream output ps]\n",
    ] {
        assert!(
            ShaderTestFile::parse(bad).is_err(),
            "{bad}\nexpected a parse error"
        );
    }
}
