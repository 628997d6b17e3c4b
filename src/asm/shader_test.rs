//! Assembly sections of `.shader_test` files (`[compute shader asm]`, `[pixel shader asm]`, …).

/// One `[… shader asm]` section of a `.shader_test` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmSection {
    /// One-based line of the section header.
    pub line: usize,
    /// The header, e.g. `[compute shader asm]`.
    pub header: String,
    /// The assembly text: the section's lines, without `%` comment lines.
    pub text: String,
}

/// The assembly sections of a `.shader_test` file, in file order. A section runs from its
/// header to the next line that starts with `[`.
pub fn asm_sections(file_text: &str) -> Vec<AsmSection> {
    let mut sections = Vec::new();
    let mut current: Option<AsmSection> = None;
    for (i, line) in file_text.lines().enumerate() {
        if line.starts_with('[') {
            sections.extend(current.take());
            let header = line.trim();
            if header.ends_with(" asm]") && header.contains("shader") {
                current = Some(AsmSection {
                    line: i + 1,
                    header: header.to_string(),
                    text: String::new(),
                });
            }
        } else if let Some(section) = current.as_mut() {
            if !line.starts_with('%') {
                section.text.push_str(line);
                section.text.push('\n');
            }
        }
    }
    sections.extend(current);
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_assembly_sections_and_drops_comments() {
        let file = "[require]\nshader model >= 5.0\n\n[compute shader asm]\n% a comment\ncs_5_0\nret\n\n[test]\ndispatch 1 1 1\n[pixel shader]\nfloat4 main() : sv_target { return 0; }\n[pixel shader asm]\nps_4_0\nret\n";
        let sections = asm_sections(file);
        assert_eq!(sections.len(), 2, "{sections:?}");
        assert_eq!(sections[0].line, 4);
        assert_eq!(sections[0].header, "[compute shader asm]");
        assert_eq!(sections[0].text, "cs_5_0\nret\n\n");
        assert_eq!(sections[1].line, 13);
        assert_eq!(sections[1].text, "ps_4_0\nret\n");
    }
}
