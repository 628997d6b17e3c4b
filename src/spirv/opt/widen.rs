//! Vector reads of read-only memory: a load of one component of a vector in an input,
//! constant buffer or push-constant block (`OpLoad` of an `OpAccessChain` whose last index
//! is a constant component) becomes a load of the whole vector and an `OpCompositeExtract`.
//! The vector loads of one block are then one load (see [`super::simplify`]), and a
//! register read whole comes out as the vector itself.

use crate::spirv::builder::{Instruction, Module, Operand};
use smallvec::SmallVec;
use spirv::{Op, Word};

use super::info::{IdMap, Info, Type};

/// The most indices of an access chain the pass widens (a descriptor array, block member,
/// array element and component need four; more is room to spare).
const MAX_INDICES: usize = 6;

/// An access chain: its base and indices.
struct Chain {
    base: Word,
    indices: [Word; MAX_INDICES],
    count: usize,
}

/// The pass's tables, kept from one run to the next (see [`super::Kept`]): chains into
/// read-only memory, and each chain's index + 1 by its id.
pub struct Tables {
    chains: Vec<Chain>,
    chain_of: IdMap<u32>,
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            chains: Vec::new(),
            chain_of: IdMap::tracked(),
        }
    }
}

impl Tables {
    /// The bytes of memory the tables hold.
    pub fn held_bytes(&self) -> usize {
        crate::fast_hash::vec_bytes(&self.chains) + self.chain_of.held_bytes()
    }
}

/// Runs the pass.
#[inline(never)]
pub fn run(module: &mut Module, info: &mut Info, tables: &mut Tables) {
    let Tables { chains, chain_of } = tables;
    chains.clear();
    chain_of.reset(info.bound());
    let mut functions = std::mem::take(&mut module.functions);
    for function in &mut functions {
        for block in &mut function.blocks {
            // Chains into read-only memory, and whether a load reads through one.
            let mut candidate = false;
            for inst in &block.instructions {
                match (inst.class.opcode, inst.result_id, inst.operands.first()) {
                    (Op::AccessChain, Some(id), Some(Operand::IdRef(base)))
                        if info.read_only(*base) && inst.operands.len() <= 1 + MAX_INDICES =>
                    {
                        let mut indices = [0; MAX_INDICES];
                        let mut count = 0;
                        for (slot, index) in indices
                            .iter_mut()
                            .zip(super::info::ids(&inst.operands[1..]))
                        {
                            *slot = index;
                            count += 1;
                        }
                        chains.push(Chain {
                            base: *base,
                            indices,
                            count,
                        });
                        chain_of.set(id, chains.len() as u32);
                    }
                    (Op::Load, _, Some(Operand::IdRef(pointer))) => {
                        candidate |= chain_of.contains(*pointer);
                    }
                    _ => {}
                }
            }
            if !candidate {
                continue;
            }
            let mut out = Vec::with_capacity(block.instructions.len() + 8);
            for inst in block.instructions.drain(..) {
                // A decorated load or pointer (`NonUniform`) keeps its exact form.
                let plain = !inst.result_id.is_some_and(|id| info.is_decorated(id))
                    && !matches!(inst.operands.first(), Some(Operand::IdRef(p)) if info.is_decorated(*p));
                let chain = match inst.operands.first() {
                    Some(Operand::IdRef(p)) if plain => {
                        chains.get((chain_of.get(*p) as usize).wrapping_sub(1))
                    }
                    _ => None,
                };
                match chain.and_then(|chain| widened(module, info, chain, &inst)) {
                    Some(replacement) => out.extend(replacement),
                    None => out.push(inst),
                }
            }
            block.instructions = out;
        }
    }
    module.functions = functions;
}

/// The instructions replacing a component load, when it is one.
fn widened(
    module: &mut Module,
    info: &mut Info,
    chain: &Chain,
    inst: &Instruction,
) -> Option<SmallVec<[Instruction; 3]>> {
    let (Op::Load, [Operand::IdRef(_)], Some(ty), Some(result)) = (
        inst.class.opcode,
        &inst.operands[..],
        inst.result_type,
        inst.result_id,
    ) else {
        return None;
    };
    if !info.read_only(chain.base) {
        return None;
    }
    let (&last, prefix) = chain.indices[..chain.count].split_last()?;
    let component = info.constant_bits(last)?;
    let (class, mut pointee) = info.variable(chain.base)?;
    for &index in prefix {
        pointee = match info.type_of_id(pointee)? {
            Type::Struct(members) => *members.get(info.constant_bits(index)? as usize)?,
            Type::Array(element) => *element,
            _ => return None,
        };
    }
    let (element, count) = info.vector(pointee)?;
    if element != ty || component >= count {
        return None;
    }
    let mut replacement = SmallVec::new();
    let vector_pointer = if prefix.is_empty() {
        chain.base
    } else {
        let pointer_type = info.make_pointer(module, class, pointee);
        let id = info.fresh(module, Some(pointer_type));
        let mut operands = vec![Operand::IdRef(chain.base)];
        operands.extend(prefix.iter().map(|&i| Operand::IdRef(i)));
        replacement.push(crate::spirv::builder::inst(
            Op::AccessChain,
            Some(pointer_type),
            Some(id),
            operands,
        ));
        id
    };
    let vector = info.fresh(module, Some(pointee));
    replacement.push(crate::spirv::builder::inst(
        Op::Load,
        Some(pointee),
        Some(vector),
        vec![Operand::IdRef(vector_pointer)],
    ));
    replacement.push(crate::spirv::builder::inst(
        Op::CompositeExtract,
        Some(ty),
        Some(result),
        vec![Operand::IdRef(vector), Operand::LiteralBit32(component)],
    ));
    Some(replacement)
}
