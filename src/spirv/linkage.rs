//! Class linkage (SM5 "dynamic linkage"): `dcl_function_body`, `dcl_function_table`,
//! `dcl_interface`, `fcall` and the `this[]` operand.
//!
//! # What the bytecode says
//!
//! A function body `fbN` is a block of code introduced by `label fbN` after the main
//! program's `ret`, like a subroutine `label lN`; it becomes a `void()` SPIR-V function.
//! `dcl_function_table ftN = {fb…}` lists the bodies of one class, one per call site.
//! `dcl_interface fpN[array][call sites] = {ft…}` declares `array` interface slots starting at
//! slot `N` (interface ids are slot bases), and lists the function tables of the classes
//! whose instances may be bound there. `fcall fpN[index][site]` calls, for the class
//! instance bound to slot `N + index`, the body at entry `site` of the function table that
//! instance selects. `this[S]` is the instance data of slot `S`: four 32-bit values, which
//! D3D11's runtime fills with the constant-buffer id and offset of the instance's data and
//! its base texture and sampler slots; the shader uses them as it likes (the translator
//! only passes them through).
//!
//! # The binding form (what a translation layer provides)
//!
//! A program with interfaces reads its class-instance bindings from one uniform buffer:
//! constant buffer [`CLASS_LINKAGE_REGISTER`] (`cb15`) of space 0, bound through the
//! binding mapper like any constant buffer (set 0, binding 15 in the default layout; the
//! reflection lists it with the name `$ClassLinkage` and describes the slots under
//! `class_linkage`). For `S` slots it holds `2 × S` `uvec4`s (16 bytes each):
//!
//! | vector | x | y | z | w |
//! |---|---|---|---|---|
//! | `2·s` | function table id (`N` of `ftN`) of the instance bound to slot `s` | 0 | 0 | 0 |
//! | `2·s + 1` | `this[s].x` | `this[s].y` | `this[s].z` | `this[s].w` |
//!
//! `fcall` loads the slot's table id and switches (`OpSelectionMerge` + `OpSwitch`) over
//! the tables its interface declares, calling the body each table lists for the call
//! site. A table id the interface does not list, or a dynamic index outside the interface's
//! array, calls nothing (so a layer can leave a slot unbound with `0xffffffff`). `this[s]`
//! reads vector `2·s + 1` as four `uint`s; a slot outside the declared ones reads zeros.
//!
//! [`CLASS_LINKAGE_REGISTER`]: crate::bindings::CLASS_LINKAGE_REGISTER

use crate::fast_hash::HashMap;
use std::collections::BTreeMap;

use spirv::{SelectionControl, StorageClass, Word};

use super::descriptors::DescriptorType;
use super::emitter::{Emitter, Val};
use super::module::{built, Scalar};
use crate::analysis::binding_plan::{interface_slot_count, ArrayShape};
use crate::bindings::CLASS_LINKAGE_REGISTER;
use crate::error::Result;
use crate::ir::{Declaration, Index, Instruction, Operand, RegisterKind};
use crate::isa::Opcode;

/// One `dcl_interface`.
#[derive(Debug, Clone, Default)]
pub struct InterfaceDecl {
    /// The number of slots (array elements) from the interface's id on.
    pub array_length: u32,
    /// The function-table ids compatible with the interface, in declaration order.
    pub tables: Vec<u32>,
}

/// The class-linkage state of the emitter.
#[derive(Debug, Clone, Default)]
pub struct LinkageState {
    /// The function bodies of each function table `ftN`, one per call site.
    pub tables: HashMap<u32, Vec<u32>>,
    /// The interfaces by id (= first slot).
    pub interfaces: HashMap<u32, InterfaceDecl>,
    /// The instance-data uniform buffer, once an interface is declared.
    pub data: Option<InstanceData>,
}

/// The instance-data uniform buffer of a program with interfaces.
#[derive(Debug, Clone, Copy)]
pub struct InstanceData {
    /// The descriptor variable.
    pub var: Word,
    /// The array element holding the buffer, when the mapper gave an array offset.
    pub element: Option<u32>,
    /// The number of interface slots.
    pub slots: u32,
}

impl Emitter<'_> {
    /// Handles `dcl_function_body`, `dcl_function_table` and `dcl_interface`; returns false
    /// for other declarations.
    pub fn linkage_declaration(&mut self, declaration: &Declaration) -> Result<bool> {
        match declaration {
            Declaration::FunctionBody(_) => {}
            Declaration::FunctionTable { id, bodies } => {
                let bodies = self.program.data_slice(*bodies).to_vec();
                if self.link.tables.insert(*id, bodies).is_some() {
                    return Err(self.err(format!("ft{id} is declared twice")));
                }
            }
            Declaration::Interface {
                id,
                array_length,
                tables,
                ..
            } => {
                let tables = self.program.data_slice(*tables).to_vec();
                let decl = InterfaceDecl {
                    array_length: (*array_length).max(1),
                    tables,
                };
                if self.link.interfaces.insert(*id, decl).is_some() {
                    return Err(self.err(format!("fp{id} is declared twice")));
                }
                self.declare_instance_data()?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Declares the instance-data uniform buffer (once).
    fn declare_instance_data(&mut self) -> Result<()> {
        if self.link.data.is_some() {
            return Ok(());
        }
        let slots = interface_slot_count(self.program);
        let length = slots
            .checked_mul(2)
            .ok_or_else(|| self.err("too many interface slots"))?;
        let binding = *self
            .bindings
            .get(RegisterKind::ConstantBuffer, CLASS_LINKAGE_REGISTER)
            .ok_or_else(|| self.internal("the class-linkage data has no binding"))?;
        let vec4 = self.m.vector(Scalar::U32, 4);
        let array = self.m.strided_array(vec4, length, 16);
        let block = self.m.block(array, false);
        let desc = self.declare_descriptor(
            RegisterKind::ConstantBuffer,
            &binding.range,
            block,
            StorageClass::Uniform,
            DescriptorType::UniformBuffer,
            self.debug_name(format_args!("class_linkage")),
        )?;
        let element = match desc.shape {
            ArrayShape::Single => None,
            // The mapper placed it at a non-zero array offset: the descriptor is that element
            // of the array.
            _ => Some(binding.binding.array_offset),
        };
        self.link.data = Some(InstanceData {
            var: desc.var,
            element,
            slots,
        });
        Ok(())
    }

    /// Loads component `component` of vector `vector` (a `uint` id) of the instance data.
    fn instance_data(&mut self, vector: Word, component: u32) -> Result<Word> {
        let data = self
            .link
            .data
            .ok_or_else(|| self.err("class linkage is used but no interface is declared"))?;
        let uint = self.m.scalar(Scalar::U32);
        // The whole `uint4`, loaded once per block (the buffer is read-only), and the
        // component taken out of it.
        let loaded = self.read_only_vector(data.var, vector, |e| {
            let vec4 = e.m.vector(Scalar::U32, 4);
            let pointer = e.m.pointer(StorageClass::Uniform, vec4);
            let zero = e.m.constant_u32(0);
            let mut chain = Vec::with_capacity(3);
            if let Some(element) = data.element {
                chain.push(e.m.constant_u32(element));
            }
            chain.extend([zero, vector]);
            let at = built(e.m.b.access_chain(pointer, None, data.var, chain))?;
            built(e.m.load(vec4, at))
        })?;
        built(self.m.composite_extract(uint, loaded, &[component]))
    }

    /// `2·slot + add` as a `uint` id.
    fn slot_vector(&mut self, slot: Word, add: u32) -> Result<Word> {
        let uint = self.m.scalar(Scalar::U32);
        let two = self.m.constant_u32(2);
        let doubled = built(self.m.b.i_mul(uint, None, slot, two))?;
        if add == 0 {
            return Ok(doubled);
        }
        let add = self.m.constant_u32(add);
        built(self.m.b.i_add(uint, None, doubled, add))
    }

    /// Emits `fcall`; returns false for other opcodes.
    pub fn linkage_instruction(&mut self, instruction: &Instruction) -> Result<bool> {
        if instruction.opcode != Opcode::InterfaceCall {
            return Ok(false);
        }
        let operand = *self
            .program
            .srcs(instruction)
            .first()
            .filter(|o| o.kind == RegisterKind::Interface)
            .ok_or_else(|| self.err("fcall needs an interface operand (fp#)"))?;
        let site = instruction
            .call_index
            .ok_or_else(|| self.err("fcall needs a call site"))?;
        let id = self.immediate_index(&operand, 0)?;
        let interface = self
            .link
            .interfaces
            .get(&id)
            .cloned()
            .ok_or_else(|| self.err(format!("fcall through fp{id}, which is not declared")))?;
        // One case per compatible table (a table listed twice is one case); the body the
        // table lists for the call site. BTreeMap: cases in table order, deterministic.
        let mut cases: BTreeMap<u32, Word> = BTreeMap::new();
        for &table in &interface.tables {
            let bodies = self.link.tables.get(&table).ok_or_else(|| {
                self.err(format!("fp{id} lists ft{table}, which is not declared"))
            })?;
            let body = *bodies.get(site as usize).ok_or_else(|| {
                self.err(format!(
                    "call site {site} is past the end of ft{table} ({} entries)",
                    bodies.len()
                ))
            })?;
            if !self.subroutines.has_body(body) {
                return Err(self.err(format!("ft{table} lists fb{body}, which no label declares")));
            }
            cases.insert(table, body);
        }
        let index = operand.indices().get(1).copied().unwrap_or(Index::Imm32(0));
        if index.relative().is_none() {
            let element = index.immediate();
            if element >= interface.array_length as u64 {
                return Err(self.err(format!(
                    "fcall fp{id}[{element}] is outside the interface's {} slots",
                    interface.array_length
                )));
            }
            let slot = id
                .checked_add(element as u32)
                .and_then(|s| s.checked_mul(2))
                .ok_or_else(|| self.err("an interface slot past 2^31"))?;
            let vector = self.m.constant_u32(slot);
            self.dispatch_call(vector, &cases)?;
            return Ok(true);
        }
        let element = self.index_value(index)?;
        let boolean = self.m.scalar(Scalar::Bool);
        let length = self.m.constant_u32(interface.array_length);
        let inside = built(self.m.b.u_less_than(boolean, None, element, length))?;
        self.conditional(inside, |e| {
            let uint = e.m.scalar(Scalar::U32);
            let base = e.m.constant_u32(id);
            let slot = built(e.m.b.i_add(uint, None, base, element))?;
            let vector = e.slot_vector(slot, 0)?;
            e.dispatch_call(vector, &cases)
        })?;
        Ok(true)
    }

    /// Loads the table id of a slot (at vector `vector` = 2·slot of the instance data) and
    /// runs the function body of the matching case, if any (inlined).
    fn dispatch_call(&mut self, vector: Word, cases: &BTreeMap<u32, u32>) -> Result<()> {
        let selector = self.instance_data(vector, 0)?;
        let merge = self.m.b.id();
        let targets: Vec<(u32, Word, u32)> = cases
            .iter()
            .map(|(&table, &body)| (table, self.m.b.id(), body))
            .collect();
        let header = self.m.b.selected_label();
        self.ssa_open_construct(header);
        built(self.m.selection_merge(merge, SelectionControl::NONE))?;
        built(
            self.m.b.switch(
                selector,
                merge,
                targets.iter().map(|&(table, label, _)| {
                    (super::builder::Operand::LiteralBit32(table), label)
                }),
            ),
        )?;
        for (_, label, body) in targets {
            built(self.m.begin_block(Some(label)))?;
            self.block_open = true;
            self.call_body(body)?;
            self.branch(merge)?;
        }
        built(self.m.begin_block(Some(merge)))?;
        self.block_open = true;
        self.ssa_close_construct(Some(merge));
        Ok(())
    }

    /// Reads component `component` of a `this[S]` operand: the instance data of slot `S`
    /// (zeros outside the declared slots).
    pub fn load_this_component(&mut self, operand: &Operand, component: u8) -> Result<Val> {
        let slots = self
            .link
            .data
            .ok_or_else(|| self.err("this[] is read but no interface is declared"))?
            .slots;
        let index = operand
            .indices()
            .first()
            .copied()
            .ok_or_else(|| self.err("this needs a slot index"))?;
        let uint = self.m.scalar(Scalar::U32);
        let component = component as u32 & 3;
        let id = if index.relative().is_none() {
            let slot = index.immediate();
            if slot >= slots as u64 {
                self.m.constant_u32(0)
            } else {
                let vector = self.m.constant_u32(2 * slot as u32 + 1);
                self.instance_data(vector, component)?
            }
        } else {
            let slot = self.index_value(index)?;
            let boolean = self.m.scalar(Scalar::Bool);
            let limit = self.m.constant_u32(slots);
            let inside = built(self.m.b.u_less_than(boolean, None, slot, limit))?;
            let zero = self.m.constant_u32(0);
            let clamped = built(self.m.select(uint, None, inside, slot, zero))?;
            let vector = self.slot_vector(clamped, 1)?;
            let value = self.instance_data(vector, component)?;
            built(self.m.select(uint, None, inside, value, zero))?
        };
        Ok(Val {
            id,
            scalar: Scalar::U32,
            count: 1,
        })
    }
}
