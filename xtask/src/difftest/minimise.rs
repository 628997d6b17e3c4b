//! Delta debugging over a failing program's instructions: the smallest program (by lines,
//! declarations kept) that still fails.

use super::generate::Case;

/// Candidate programs tried at most (each costs an interpreter run and device runs).
const MAX_TRIES: usize = 600;

/// Whether a line may be removed: instructions, not the version line or declarations, and
/// not the generator's addressing (the instructions that write `r0`, which holds the
/// thread's index and the store addresses): without them threads would store over each
/// other's results, and the smaller program would fail for a reason the original does not
/// have.
fn removable(line: &str) -> bool {
    let t = line.trim();
    let writes_r0 = t
        .split_once(' ')
        .is_some_and(|(_, operands)| operands.trim_start().starts_with("r0."));
    !(t.is_empty()
        || t.starts_with("dcl_")
        || t.starts_with("cs_")
        || t.starts_with("//")
        || t == "ret"
        || writes_r0)
}

/// The case with only the kept instruction lines (every other line stays).
fn with_lines(case: &Case, lines: &[&str], kept: &[usize]) -> Case {
    let mut asm = String::new();
    for (i, line) in lines.iter().enumerate() {
        if !removable(line) || kept.binary_search(&i).is_ok() {
            asm.push_str(line);
            asm.push('\n');
        }
    }
    Case {
        asm,
        ..case.clone()
    }
}

/// The smallest variant of `case` for which `fails` still holds (ddmin over instruction
/// lines, then single lines until nothing more can go). `fails(case)` is assumed true.
pub fn minimise(case: &Case, mut fails: impl FnMut(&Case) -> bool) -> Case {
    let lines: Vec<&str> = case.asm.lines().collect();
    let mut kept: Vec<usize> = (0..lines.len()).filter(|&i| removable(lines[i])).collect();
    let mut tries = 0;
    let mut n = 2usize;
    while kept.len() >= 2 && tries < MAX_TRIES {
        let chunk = kept.len().div_ceil(n);
        let mut reduced = false;
        for start in (0..kept.len()).step_by(chunk) {
            let candidate: Vec<usize> = kept
                .iter()
                .enumerate()
                .filter(|(j, _)| *j < start || *j >= start + chunk)
                .map(|(_, &i)| i)
                .collect();
            tries += 1;
            if fails(&with_lines(case, &lines, &candidate)) {
                kept = candidate;
                n = n.saturating_sub(1).max(2);
                reduced = true;
                break;
            }
            if tries >= MAX_TRIES {
                break;
            }
        }
        if !reduced {
            if n >= kept.len() {
                break;
            }
            n = (n * 2).min(kept.len());
        }
    }
    // Single lines, until a pass removes nothing.
    let mut changed = true;
    while changed && tries < MAX_TRIES {
        changed = false;
        let mut j = 0;
        while j < kept.len() && tries < MAX_TRIES {
            let mut candidate = kept.clone();
            candidate.remove(j);
            tries += 1;
            if fails(&with_lines(case, &lines, &candidate)) {
                kept = candidate;
                changed = true;
            } else {
                j += 1;
            }
        }
    }
    with_lines(case, &lines, &kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(asm: &str) -> Case {
        Case {
            seed: 0,
            model: (5, 0),
            asm: asm.into(),
            groups: [1, 1, 1],
            srvs: Vec::new(),
            uavs: Vec::new(),
            constants: Vec::new(),
        }
    }

    #[test]
    fn keeps_only_the_lines_the_failure_needs_the_addressing_and_every_declaration() {
        let text = "cs_5_0\ndcl_temps 2\nmov r1.x, l(1)\nmov r0.y, l(2)\nBAD1\nmov r1.z, l(3)\nBAD2\nret\n";
        let small = minimise(&case(text), |c| {
            c.asm.contains("BAD1") && c.asm.contains("BAD2")
        });
        assert_eq!(
            small.asm, "cs_5_0\ndcl_temps 2\nmov r0.y, l(2)\nBAD1\nBAD2\nret\n",
            "from:\n{text}"
        );
    }
}
