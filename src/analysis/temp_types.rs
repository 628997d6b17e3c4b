//! Type inference for temp registers: which scalar type each component of each `r#` holds.
//!
//! DXBC temps are untyped 32-bit registers; the opcode decides how bits are read. Each
//! component of each temp gets the type most of its reads and writes use (float, int or
//! uint), so that the emitter stores values in that type and only casts where the program
//! really reinterprets bits. Untyped moves (`mov`, `movc`, loads) do not vote; a component
//! with no votes is `uint`.

use crate::ir::{ComponentCount, Index, Operand, Program, RegisterKind, Selection, ValueType};

/// The temp registers whose components are typed by votes.
const MAX_TYPED_REGISTERS: u32 = 1 << 16;

/// The inferred type of every temp component that the program uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TempTypes {
    /// The (float, int, uint) votes of each component, by `register * 4 + component`.
    votes: Vec<[u32; 3]>,
}

/// The type a temp component holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TempType {
    /// 32-bit float.
    Float,
    /// 32-bit signed integer.
    Int,
    /// 32-bit unsigned integer (also the type of components no typed instruction touches).
    Uint,
}

impl TempTypes {
    /// The type of component `component` (0–3) of `r{register}`.
    pub fn get(&self, register: u32, component: u8) -> TempType {
        let slot = (register as usize)
            .checked_mul(4)
            .map(|base| base + (component & 3) as usize);
        match slot.and_then(|slot| self.votes.get(slot)) {
            Some([f, i, u]) if f >= i && f >= u && *f > 0 => TempType::Float,
            Some([_, i, u]) if i > u => TempType::Int,
            _ => TempType::Uint,
        }
    }

    fn vote(&mut self, operand: &Operand, value_type: ValueType) {
        let slot = match value_type {
            ValueType::F32 => 0,
            ValueType::I32 => 1,
            // Double halves are held as uint bits.
            ValueType::U32 | ValueType::F64 => 2,
            _ => return,
        };
        let Some(register) = operand.indices[0].as_imm32() else {
            return;
        };
        if operand.kind != RegisterKind::Temp || operand.index_count != 1 {
            return;
        }
        // Registers past Direct3D's 4096 (only with raised limits) beyond this many vote
        // nothing: they are uint, which is always right, only not always cast-free.
        if register >= MAX_TYPED_REGISTERS {
            return;
        }
        let mask = components(operand);
        let base = register as usize * 4;
        if self.votes.len() < base + 4 {
            self.votes.resize(base + 4, [0; 3]);
        }
        for component in (0..4usize).filter(|c| mask & (1 << c) != 0) {
            self.votes[base + component][slot] += 1;
        }
    }
}

/// The components of an operand that are read or written, as a mask (bit 0 = x); a mask
/// rather than a list, as this runs for every operand of the program.
fn components(operand: &Operand) -> u8 {
    match (operand.components, operand.selection) {
        (ComponentCount::Four, Selection::Mask(mask)) => mask & 0xf,
        (ComponentCount::Four, Selection::Swizzle(s)) => {
            s.iter().fold(0, |mask, &c| mask | 1 << (c & 3))
        }
        (ComponentCount::Four, Selection::Select1(c)) => 1 << (c & 3),
        _ => 1,
    }
}

/// Infers the temp types of a program.
pub fn infer_temp_types(program: &Program) -> TempTypes {
    let mut types = TempTypes::default();
    for operand in &program.operands {
        types.vote(operand, operand.value_type);
        for index in operand.indices() {
            if let Index::Relative(id)
            | Index::Imm32PlusRelative(_, id)
            | Index::Imm64PlusRelative(_, id) = index
            {
                let inner = program.operand(*id);
                types.vote(inner, ValueType::I32);
            }
        }
    }
    types
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_type_wins_and_untyped_components_are_uint() {
        let text = "ps_4_0\ndcl_temps 2\nadd r0.xy, r0.xyxx, r0.xyxx\niadd r0.z, r0.z, l(1)\nmov r1.x, r0.x\nftou r0.w, r0.x\nret\n";
        let program = crate::asm::parse_program(text).expect("test program assembles");
        let types = infer_temp_types(&program);
        assert_eq!(
            types.get(0, 0),
            TempType::Float,
            "r0.x: add reads and writes float"
        );
        assert_eq!(types.get(0, 1), TempType::Float, "r0.y");
        assert_eq!(types.get(0, 2), TempType::Int, "r0.z: iadd");
        assert_eq!(types.get(0, 3), TempType::Uint, "r0.w: ftou writes uint");
        assert_eq!(types.get(1, 0), TempType::Uint, "r1.x: only moved");
    }

    #[test]
    fn double_halves_are_uint_bits() {
        let text = "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\ndadd r0.xyzw, r1.xyzw, r1.zwxy\ndtof r1.x, r0.zwzw\nret\n";
        let program = crate::asm::parse_program(text).expect("test program assembles");
        let types = infer_temp_types(&program);
        for c in 0..4 {
            assert_eq!(types.get(0, c), TempType::Uint, "r0 component {c}");
        }
        assert_eq!(types.get(1, 1), TempType::Uint, "r1.y: a double half");
    }
}
