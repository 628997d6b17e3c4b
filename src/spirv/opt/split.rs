//! Scalar replacement of private arrays and vectors: a `Private` variable of array or
//! vector type that the code reaches only through access chains whose first index is a
//! constant is split into one variable per element used. `x0[2].y` written and read with
//! immediate indices, or a hull shader's patch constants written by one phase and read by
//! the next, become variables of their own, which `forward` and `dead_stores` then turn
//! into values. Rounds repeat the split on the new variables (an array of vectors becomes
//! vectors, then scalars) until nothing qualifies.
//!
//! A variable with an initializer, a decoration, or any use other than the base of such an
//! access chain stays whole.

use crate::spirv::builder::{Module, Operand};

use spirv::{Op, StorageClass, Word};

use super::info::{ids, IdMap, Info, Subst, Type};

/// The most rounds (nesting depth of arrays and vectors split).
const ROUNDS: usize = 4;

/// Runs the pass; returns whether any variable was split.
#[inline(never)]
pub fn run(module: &mut Module, info: &mut Info) -> bool {
    let mut split_any = false;
    for _ in 0..ROUNDS {
        if !round(module, info) {
            break;
        }
        split_any = true;
    }
    split_any
}

/// The element type of a splittable pointee.
fn element_of(info: &Info, pointee: Word) -> Option<Word> {
    match info.type_of_id(pointee)? {
        Type::Array(element) => Some(*element),
        Type::Vector { component, .. } => Some(*component),
        _ => None,
    }
}

/// One round: finds the candidates, makes their element variables and rewrites the chains.
fn round(module: &mut Module, info: &mut Info) -> bool {
    let candidates: smallvec::SmallVec<[Word; 8]> = info
        .variables()
        .iter()
        .copied()
        .filter(|&var| {
            matches!(info.variable(var), Some((StorageClass::Private, pointee))
                if element_of(info, pointee).is_some()
                    && !info.is_decorated(var)
                    && !info.is_volatile(var))
        })
        .collect();
    // Most modules have none: no table by id is made for them.
    if candidates.is_empty() {
        return false;
    }
    // 1 for a candidate, 2 for one disqualified.
    let mut state: IdMap<u8> = IdMap::with_bound(info.bound());
    for &var in &candidates {
        state.set(var, 1);
    }
    let disqualify = |state: &mut IdMap<u8>, id: Word| {
        if state.get(id) == 1 {
            state.set(id, 2);
        }
    };
    for inst in &module.types_global_values {
        // An initializer, or any other global use.
        if inst.class.opcode == Op::Variable && inst.operands.len() > 1 {
            if let Some(id) = inst.result_id() {
                disqualify(&mut state, id);
            }
        }
        for id in ids(&inst.operands) {
            disqualify(&mut state, id);
        }
    }
    let mut chains = 0usize;
    for inst in module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
        for (slot, operand) in inst.operands.iter().enumerate() {
            let Operand::IdRef(id) = *operand else {
                continue;
            };
            if state.get(id) != 1 {
                continue;
            }
            let constant_first = chain
                && slot == 0
                && matches!(inst.operands.get(1), Some(Operand::IdRef(i)) if info.constant_bits(*i).is_some());
            if constant_first {
                chains += 1;
            } else {
                disqualify(&mut state, id);
            }
        }
    }
    if chains == 0 || !state.iter().any(|(_, s)| s == 1) {
        return false;
    }
    // The element variables, made on first use: (variable, index) → element variable.
    let mut made: crate::fast_hash::HashMap<(Word, u32), Word> = Default::default();
    let mut new_vars: Vec<(Word, Word)> = Vec::new();
    let mut subst = Subst::with_bound(info.bound());
    let mut changed = false;
    for f in 0..module.functions.len() {
        for b in 0..module.functions[f].blocks.len() {
            let mut i = 0;
            while i < module.functions[f].blocks[b].instructions.len() {
                let inst = &module.functions[f].blocks[b].instructions[i];
                let target = match (
                    inst.class.opcode,
                    inst.operands.first(),
                    inst.operands.get(1),
                ) {
                    (
                        Op::AccessChain | Op::InBoundsAccessChain,
                        Some(Operand::IdRef(var)),
                        Some(Operand::IdRef(index)),
                    ) if state.get(*var) == 1 => {
                        Some((*var, info.constant_bits(*index).unwrap_or(0)))
                    }
                    _ => None,
                };
                let Some((var, index)) = target else {
                    i += 1;
                    continue;
                };
                let element_var = match made.get(&(var, index)) {
                    Some(&v) => v,
                    None => {
                        let v = make_element_variable(module, info, var);
                        made.insert((var, index), v);
                        new_vars.push((var, v));
                        v
                    }
                };
                changed = true;
                let inst = &mut module.functions[f].blocks[b].instructions[i];
                if inst.operands.len() == 2 {
                    // The chain is the element itself.
                    if let Some(result) = inst.result_id() {
                        subst.replace(result, element_var);
                    }
                    module.functions[f].blocks[b].instructions.remove(i);
                } else {
                    inst.operands.remove(1);
                    inst.operands[0] = Operand::IdRef(element_var);
                    i += 1;
                }
            }
        }
    }
    for function in &mut module.functions {
        for inst in function.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
            subst.apply(inst);
        }
    }
    // The entry points list every module-scope variable their code uses (SPIR-V 1.4 on):
    // the element variables join the interfaces of their whole variable.
    for entry in &mut module.entry_points {
        let listed: Vec<Word> = new_vars
            .iter()
            .filter(|(whole, _)| entry.operands.contains(&Operand::IdRef(*whole)))
            .map(|&(_, element)| element)
            .collect();
        entry
            .operands
            .extend(listed.into_iter().map(Operand::IdRef));
    }
    changed
}

/// A new `Private` variable of the element type of `var`'s pointee.
fn make_element_variable(module: &mut Module, info: &mut Info, var: Word) -> Word {
    let element = info
        .variable(var)
        .and_then(|(_, pointee)| element_of(info, pointee))
        .unwrap_or(0);
    let pointer = info.make_pointer(module, StorageClass::Private, element);
    let id = info.fresh(module, Some(pointer));
    let inst = crate::spirv::builder::inst(
        Op::Variable,
        Some(pointer),
        Some(id),
        crate::spirv::builder::operands([Operand::StorageClass(StorageClass::Private)]),
    );
    info.record_global(&inst);
    module.types_global_values.push(inst);
    id
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::spirv::opt::info::Info;
    use crate::spirv::opt::test_support::{assert_valid, count, text, Shell};
    use spirv::Op;

    /// `a[1].y = input.x; output.x = a[1].y` through a private `uvec4[3]`-like array of
    /// vectors; with `dynamic`, the read takes a non-constant element index.
    fn array_of_vectors(dynamic: bool) -> crate::spirv::builder::Module {
        let mut s = Shell::new();
        let three = s.uint_const(3);
        let array = s.m.b.type_array_id(None, s.vec4, three);
        let a = s.private(array);
        let (one, y) = (s.uint_const(1), s.uint_const(1));
        let fptr = s.m.pointer(spirv::StorageClass::Private, s.float);
        let v = s.m.load(s.vec4, s.input).unwrap();
        let x = s.m.composite_extract(s.float, v, &[0]).unwrap();
        let slot = s.m.access_chain(fptr, a, &[one, y]).unwrap();
        s.m.store(slot, x).unwrap();
        let index = if dynamic {
            let uint = s.uint;
            s.m.b.convert_f_to_u(uint, None, x).unwrap()
        } else {
            one
        };
        let slot = s.m.access_chain(fptr, a, &[index, y]).unwrap();
        let read = s.m.load(s.float, slot).unwrap();
        let vec4 = s.vec4;
        let out =
            s.m.b
                .composite_construct(vec4, None, [read, read, read, read])
                .unwrap();
        s.m.store(s.output, out).unwrap();
        s.finish()
    }

    #[test]
    fn constant_chains_split_an_array_of_vectors_into_scalars() {
        let mut module = array_of_vectors(false);
        assert_valid(&module);
        let mut info = Info::of(&module);
        assert!(run(&mut module, &mut info), "{}", text(&module));
        assert_eq!(count(&module, Op::AccessChain), 0, "{}", text(&module));
        assert_valid(&module);
    }

    #[test]
    fn a_dynamic_index_keeps_the_array_whole() {
        let mut module = array_of_vectors(true);
        let mut info = Info::of(&module);
        assert!(!run(&mut module, &mut info), "{}", text(&module));
        assert_eq!(count(&module, Op::AccessChain), 2, "{}", text(&module));
        assert_valid(&module);
    }
}
