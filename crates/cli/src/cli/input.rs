//! What an input file holds, recognised by its content (never its name): a DXBC container
//! (with a program, with DXIL, a root signature only, or no program), a SPIR-V module,
//! assembly text, a `.shader_test` file, empty input or other binary data. Every subcommand
//! that reads a shader asks [`recognise`] first, so an input of the wrong kind is refused
//! with a message that says what it is and why.

/// What an input holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// No bytes at all.
    Empty,
    /// Text of white space only.
    Blank,
    /// A SPIR-V module (magic 0x07230203 in either byte order).
    Spirv {
        /// The words are big-endian.
        big_endian: bool,
    },
    /// A DXBC container with an SM4/5 program (SHDR/SHEX), or one too damaged to list its
    /// chunks (the reader then reports the damage).
    Dxbc,
    /// A DXBC container holding a Shader Model 6 program (the named chunk).
    Dxil(String),
    /// A DXBC container holding only a root signature (RTS0).
    RootSignature,
    /// A DXBC container without a program (its chunks listed).
    NoProgram(String),
    /// A `.shader_test` file (text with `[...]` section headers), with the number of its
    /// assembly sections.
    ShaderTest {
        /// `[... shader asm]` sections.
        asm_sections: usize,
    },
    /// Other text: assembly, for the assembler to read.
    Assembly,
    /// Bytes that are none of the above.
    Binary,
}

/// Chunks of a Shader Model 6 container.
const DXIL_CHUNKS: [&[u8; 4]; 5] = [b"DXIL", b"ILDB", b"ILDN", b"PSV0", b"RDAT"];

/// Recognises an input by its content.
pub fn recognise(bytes: &[u8]) -> Kind {
    if bytes.is_empty() {
        return Kind::Empty;
    }
    if bytes.starts_with(b"DXBC") {
        return container_kind(bytes);
    }
    if let Some(magic) = bytes.get(..4) {
        if magic == 0x0723_0203u32.to_le_bytes() {
            return Kind::Spirv { big_endian: false };
        }
        if magic == 0x0723_0203u32.to_be_bytes() {
            return Kind::Spirv { big_endian: true };
        }
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Kind::Binary;
    };
    if text
        .chars()
        .any(|c| c.is_control() && !c.is_ascii_whitespace())
    {
        return Kind::Binary;
    }
    if text.trim().is_empty() {
        return Kind::Blank;
    }
    let headers = text
        .lines()
        .filter(|l| {
            let l = l.trim_end();
            l.starts_with('[') && l.ends_with(']')
        })
        .count();
    if headers > 0 {
        return Kind::ShaderTest {
            asm_sections: dxbc2spirv::asm::asm_sections(text).len(),
        };
    }
    Kind::Assembly
}

/// The kind of a container: its chunk list decides.
fn container_kind(bytes: &[u8]) -> Kind {
    let options = dxbc2spirv::container::ParseOptions {
        ignore_checksum: true,
    };
    let Ok(container) = dxbc2spirv::container::Container::parse(bytes, &options) else {
        return Kind::Dxbc;
    };
    if container.program().is_some() {
        return Kind::Dxbc;
    }
    let name = |fourcc: &[u8; 4]| String::from_utf8_lossy(fourcc).into_owned();
    if let Some(chunk) = container
        .chunks
        .iter()
        .find(|c| DXIL_CHUNKS.contains(&&c.fourcc))
    {
        return Kind::Dxil(name(&chunk.fourcc));
    }
    if container.find(*b"RTS0").is_some() {
        return Kind::RootSignature;
    }
    let chunks: Vec<String> = container.chunks.iter().map(|c| name(&c.fourcc)).collect();
    Kind::NoProgram(if chunks.is_empty() {
        "no chunks".to_string()
    } else {
        format!("chunks {}", chunks.join(", "))
    })
}

impl Kind {
    /// What the input is, as a message starts: `a SPIR-V module`.
    pub fn describe(&self) -> String {
        match self {
            Kind::Empty => "empty (0 bytes)".into(),
            Kind::Blank => "text of white space only".into(),
            Kind::Spirv { big_endian: false } => "a SPIR-V module".into(),
            Kind::Spirv { big_endian: true } => "a SPIR-V module (big-endian)".into(),
            Kind::Dxbc => "a DXBC container".into(),
            Kind::Dxil(chunk) => format!("a Shader Model 6 container (DXIL: {chunk} chunk)"),
            Kind::RootSignature => "a DXBC container holding only a root signature (RTS0)".into(),
            Kind::NoProgram(chunks) => {
                format!("a DXBC container without a shader program ({chunks})")
            }
            Kind::ShaderTest { .. } => "a .shader_test file".into(),
            Kind::Assembly => "assembly text".into(),
            Kind::Binary => "binary data".into(),
        }
    }

    /// Why a subcommand that reads DXBC programs (or assembly text when `text` is true)
    /// refuses this input, or `None` when it can read it.
    pub fn refusal(&self, text: bool) -> Option<String> {
        let what = self.describe();
        Some(match self {
            Kind::Dxbc => return None,
            Kind::Assembly | Kind::ShaderTest { asm_sections: 1.. } if text => return None,
            Kind::Empty | Kind::Blank => format!(
                "{what}: expected a DXBC container{}",
                if text {
                    ", assembly text or a .shader_test file"
                } else {
                    ""
                }
            ),
            Kind::Spirv { .. } => format!(
                "{what}, not DXBC: use `dxbc2spirv validate` to check a SPIR-V module \
                 (spirv-dis to read it)"
            ),
            Kind::Dxil(_) => format!(
                "{what}: Shader Model 6 (DXIL) is not supported; dxbc2spirv reads SM4.0-5.1 \
                 programs (SHDR/SHEX)"
            ),
            Kind::RootSignature | Kind::NoProgram(_) => {
                format!("{what}: there is no program to read")
            }
            Kind::ShaderTest { .. } if text => format!(
                "{what} without a `[... shader asm]` section (HLSL sections must be compiled \
                 to DXBC first)"
            ),
            Kind::ShaderTest { .. } | Kind::Assembly => format!(
                "{what}, not a DXBC container: `dxbc2spirv asm` assembles text (or give it to \
                 translate, reflect, validate or run)"
            ),
            Kind::Binary => {
                format!("{what}: neither a DXBC container, a SPIR-V module nor text")
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_recognised_by_content() {
        let spirv = 0x0723_0203u32;
        let cases: Vec<(&str, Vec<u8>, Kind)> = vec![
            ("empty", vec![], Kind::Empty),
            ("blank", b" \n\t\n".to_vec(), Kind::Blank),
            (
                "spirv le",
                spirv.to_le_bytes().to_vec(),
                Kind::Spirv { big_endian: false },
            ),
            (
                "spirv be",
                spirv.to_be_bytes().to_vec(),
                Kind::Spirv { big_endian: true },
            ),
            ("asm", b"cs_5_0\nret\n".to_vec(), Kind::Assembly),
            (
                "shader_test",
                b"[require]\nshader model >= 5.0\n[compute shader asm]\ncs_5_0\nret\n".to_vec(),
                Kind::ShaderTest { asm_sections: 1 },
            ),
            (
                "hlsl shader_test",
                b"[compute shader]\nvoid main() {}\n".to_vec(),
                Kind::ShaderTest { asm_sections: 0 },
            ),
            ("binary", vec![0, 1, 2, 3, 0xff], Kind::Binary),
            ("nul in text", b"cs_5_0\0".to_vec(), Kind::Binary),
            ("damaged dxbc", b"DXBC junk".to_vec(), Kind::Dxbc),
        ];
        for (name, bytes, kind) in cases {
            assert_eq!(recognise(&bytes), kind, "{name}: {bytes:?}");
        }
    }

    /// A container with the given chunks, each empty.
    fn container(chunks: &[&[u8; 4]]) -> Vec<u8> {
        let chunks: Vec<([u8; 4], Vec<u8>)> = chunks.iter().map(|c| (**c, Vec::new())).collect();
        dxbc2spirv::container::write_container(&chunks)
    }

    #[test]
    fn containers_are_told_apart_by_their_chunks() {
        assert_eq!(
            recognise(&container(&[b"SFI0", b"ISG1", b"DXIL"])),
            Kind::Dxil("DXIL".into())
        );
        assert_eq!(recognise(&container(&[b"RTS0"])), Kind::RootSignature);
        assert_eq!(
            recognise(&container(&[b"ISGN", b"OSGN"])),
            Kind::NoProgram("chunks ISGN, OSGN".into())
        );
        assert_eq!(recognise(&container(&[b"ISGN", b"SHEX"])), Kind::Dxbc);
        let refusal = Kind::Dxil("DXIL".into()).refusal(true).expect("refused");
        assert!(
            refusal.contains("Shader Model 6 (DXIL) is not supported"),
            "{refusal}"
        );
        assert_eq!(Kind::Assembly.refusal(true), None);
        assert!(Kind::Assembly.refusal(false).is_some());
    }
}
