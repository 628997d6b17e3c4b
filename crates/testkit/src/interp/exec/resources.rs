//! The memory instructions: loads, stores, atomics, the UAV counter, `bufinfo`, `resinfo`.
//!
//! A resource the program declares but [`crate::interp::Resources`] lacks is unbound: its
//! loads, `bufinfo`, `resinfo` and atomics return 0, its stores and atomics write nothing,
//! its counter gives 0. An atomic out of bounds writes nothing and returns 0 (D3D leaves the
//! returned value undefined).

use super::plan::Access;
use super::shared::Touch;
use super::thread::{Machine, Thread};
use crate::interp::memory::{AtomicOp, Resource, Shape};
use dxbc2spirv::ir::{InfoReturnType, Instruction, Operand, RegisterKind, ResourceDimension};
use dxbc2spirv::isa::Opcode;
use dxbc2spirv::Result;

/// The dwords of a raw or structured access, for [`Machine::touch_dwords`].
#[derive(Debug, Clone, Copy)]
struct Dwords {
    /// `[byte offset]` (raw) or `[element, byte offset]` (structured).
    address: [u32; 2],
    /// The dwords from the address touched (bit 0 = the first).
    mask: u8,
    /// How.
    touch: Touch,
    /// What a store writes, by dword.
    values: [u32; 4],
}

/// Where a resource operand points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A shader resource view by (space, register).
    Srv((u32, u32)),
    /// An unordered access view by (space, register).
    Uav((u32, u32)),
    /// Group-shared memory by the plan's slot.
    Tgsm(usize),
}

/// A resource operand resolved.
#[derive(Debug, Clone, Copy)]
struct Located {
    target: Target,
    access: Access,
}

/// The coordinates a typed access of this dimension takes, and how many of them are
/// spatial (offset by `_aoffimmi`, reciprocated by `resinfo_rcpFloat`).
fn coordinate_counts(dimension: ResourceDimension) -> Option<(usize, usize)> {
    use ResourceDimension as D;
    Some(match dimension {
        D::Buffer => (1, 1),
        D::Texture1D => (1, 1),
        D::Texture1DArray => (2, 1),
        D::Texture2D | D::Texture2DMS => (2, 2),
        D::Texture2DArray | D::Texture2DMSArray => (3, 2),
        D::Texture3D => (3, 3),
        D::TextureCube => (3, 2),
        D::TextureCubeArray => (3, 2),
        D::Unknown | D::RawBuffer | D::StructuredBuffer => return None,
    })
}

/// The atomic operation of an opcode and whether it returns the old value.
fn atomic_op(opcode: Opcode) -> Option<(AtomicOp, bool)> {
    use Opcode as O;
    Some(match opcode {
        O::AtomicAnd => (AtomicOp::And, false),
        O::AtomicOr => (AtomicOp::Or, false),
        O::AtomicXor => (AtomicOp::Xor, false),
        O::AtomicCmpStore => (AtomicOp::CompareExchange, false),
        O::AtomicIadd => (AtomicOp::Add, false),
        O::AtomicImax => (AtomicOp::IMax, false),
        O::AtomicImin => (AtomicOp::IMin, false),
        O::AtomicUmax => (AtomicOp::UMax, false),
        O::AtomicUmin => (AtomicOp::UMin, false),
        O::ImmAtomicIadd => (AtomicOp::Add, true),
        O::ImmAtomicAnd => (AtomicOp::And, true),
        O::ImmAtomicOr => (AtomicOp::Or, true),
        O::ImmAtomicXor => (AtomicOp::Xor, true),
        O::ImmAtomicExch => (AtomicOp::Exchange, true),
        O::ImmAtomicCmpExch => (AtomicOp::CompareExchange, true),
        O::ImmAtomicImax => (AtomicOp::IMax, true),
        O::ImmAtomicImin => (AtomicOp::IMin, true),
        O::ImmAtomicUmax => (AtomicOp::UMax, true),
        O::ImmAtomicUmin => (AtomicOp::UMin, true),
        _ => return None,
    })
}

/// Applies a resource operand's swizzle to what a load returned.
fn swizzled(operand: &Operand, value: [u32; 4]) -> [u32; 4] {
    match operand.components {
        dxbc2spirv::ir::ComponentCount::Four => {
            std::array::from_fn(|i| value[operand.selection.component(i) as usize & 3])
        }
        _ => value,
    }
}

impl Machine<'_, '_> {
    /// Whether the executor's memory code handles this opcode.
    pub(super) fn is_memory(&self, opcode: Opcode) -> bool {
        use Opcode as O;
        atomic_op(opcode).is_some()
            || matches!(
                opcode,
                O::LdRaw
                    | O::LdStructured
                    | O::StoreRaw
                    | O::StoreStructured
                    | O::LdUavTyped
                    | O::StoreUavTyped
                    | O::Ld
                    | O::Bufinfo
                    | O::Resinfo
                    | O::ImmAtomicAlloc
                    | O::ImmAtomicConsume
                    | O::LdS
                    | O::LdUavTypedS
                    | O::LdRawS
                    | O::LdStructuredS
                    | O::CheckAccessFullyMapped
            )
    }

    fn locate(&self, t: &Thread, operand: &Operand, at: usize) -> Result<Located> {
        match operand.kind {
            RegisterKind::ThreadGroupSharedMemory => {
                let register = operand
                    .indices()
                    .first()
                    .and_then(|i| i.as_imm32())
                    .ok_or_else(|| self.fail(at, "a g# operand without a register number"))?;
                let slot = self
                    .plan
                    .tgsm
                    .iter()
                    .position(|g| g.register == register)
                    .ok_or_else(|| {
                        self.fail(at, format!("g{register} is used but not declared"))
                    })?;
                let access = match self.plan.tgsm[slot].shape {
                    Shape::Structured { .. } => Access::Structured,
                    _ => Access::Raw,
                };
                Ok(Located {
                    target: Target::Tgsm(slot),
                    access,
                })
            }
            RegisterKind::Resource | RegisterKind::UnorderedAccessView => {
                let (binding, key) = self.binding(t, operand, at)?;
                let target = if operand.kind == RegisterKind::Resource {
                    Target::Srv(key)
                } else {
                    Target::Uav(key)
                };
                Ok(Located {
                    target,
                    access: binding.access,
                })
            }
            kind => Err(self.fail(
                at,
                format!("a {} operand where a resource is expected", kind.name()),
            )),
        }
    }

    fn get(&self, target: Target) -> Option<&Resource> {
        match target {
            Target::Srv(key) => self.resources.srvs.get(&key),
            Target::Uav(key) => self.resources.uavs.get(&key),
            Target::Tgsm(slot) => self.tgsm.get(slot),
        }
    }

    fn get_mut(&mut self, target: Target) -> Option<&mut Resource> {
        match target {
            Target::Srv(key) => self.resources.srvs.get_mut(&key),
            Target::Uav(key) => self.resources.uavs.get_mut(&key),
            Target::Tgsm(slot) => self.tgsm.get_mut(slot),
        }
    }

    /// The address of a raw, structured or typed access from a source, unused components 0.
    fn address(&self, located: &Located, value: [u32; 4], at: usize) -> Result<[u32; 3]> {
        let count = match located.access {
            Access::Raw => 1,
            Access::Structured => 2,
            Access::Typed(dimension) => {
                coordinate_counts(dimension)
                    .ok_or_else(|| {
                        self.fail(at, "a typed access to a resource of unknown dimension")
                    })?
                    .0
            }
            Access::Constant | Access::Sampler => {
                return Err(self.fail(at, "a memory access to a constant buffer or sampler"))
            }
        };
        Ok(std::array::from_fn(
            |i| if i < count { value[i] } else { 0 },
        ))
    }

    /// With [`crate::interp::Options::undefined_reads`]: checks and records (see
    /// [`super::shared`]) the dwords of a raw or structured access that `mask` selects, in
    /// group-shared memory and UAVs (`values`: what a store writes, by dword).
    fn touch_dwords(
        &mut self,
        t: &Thread,
        target: Target,
        access: Dwords,
        at: usize,
    ) -> Result<()> {
        let Dwords {
            address,
            mask,
            touch,
            values,
        } = access;
        if !self.options.undefined_reads {
            return Ok(());
        }
        let Some(memory) = self.get(target) else {
            return Ok(());
        };
        let bytes: Vec<(u32, u64)> = (0..4u32)
            .filter(|i| mask & (1 << i) != 0)
            .filter_map(|i| Some((i, memory.dword_at(address, i)?)))
            .collect();
        match target {
            Target::Tgsm(slot) => {
                for (_, byte) in bytes {
                    self.shared
                        .touch(slot, byte, t.ids.flat, touch)
                        .map_err(|message| self.fail(at, message))?;
                }
                Ok(())
            }
            Target::Uav(key) => {
                for (i, byte) in bytes {
                    let value = match touch {
                        Touch::Load => continue,
                        Touch::Store => Some(values[i as usize]),
                        Touch::Atomic | Touch::ImmAtomic => None,
                    };
                    self.uav_stores
                        .store(key, byte, t.ids.thread, value)
                        .map_err(|message| self.fail(at, message))?;
                }
                Ok(())
            }
            Target::Srv(_) => Ok(()),
        }
    }

    fn operand<'o>(&self, operands: &'o [Operand], k: usize, at: usize) -> Result<&'o Operand> {
        operands
            .get(k)
            .ok_or_else(|| self.fail(at, format!("a memory instruction lacks operand {k}")))
    }

    /// Executes a memory instruction.
    pub(super) fn memory(
        &mut self,
        t: &mut Thread,
        instruction: &Instruction,
        pc: usize,
    ) -> Result<()> {
        use Opcode as O;
        let program = self.plan.program;
        let dsts = program.dsts(instruction);
        let srcs = program.srcs(instruction);
        let opcode = instruction.opcode;
        if let Some((op, returns)) = atomic_op(opcode) {
            let resource = self.operand(dsts, usize::from(returns), pc)?;
            let located = self.locate(t, resource, pc)?;
            let address = self.read(t, self.operand(srcs, 0, pc)?, pc)?;
            let address = self.address(&located, address, pc)?;
            let a = self.read(t, self.operand(srcs, 1, pc)?, pc)?[0];
            let b = match srcs.get(2) {
                Some(operand) => self.read(t, operand, pc)?[0],
                None => 0,
            };
            let touch = if returns {
                Touch::ImmAtomic
            } else {
                Touch::Atomic
            };
            let access = Dwords {
                address: [address[0], address[1]],
                mask: 1,
                touch,
                values: [0; 4],
            };
            self.touch_dwords(t, located.target, access, pc)?;
            let old = self
                .get_mut(located.target)
                .and_then(|r| r.atomic(address, op, a, b))
                .unwrap_or(0);
            if returns {
                self.write(t, self.operand(dsts, 0, pc)?, [old; 4], pc)?;
            }
            return Ok(());
        }
        // The `_s` loads: the load, then a residency status in the second destination.
        // Resources here are never tiled, so the status is 0 and every check of it says
        // "fully mapped".
        let (opcode, status) = match opcode {
            O::LdS => (O::Ld, true),
            O::LdUavTypedS => (O::LdUavTyped, true),
            O::LdRawS => (O::LdRaw, true),
            O::LdStructuredS => (O::LdStructured, true),
            other => (other, false),
        };
        match opcode {
            O::CheckAccessFullyMapped => {
                self.write(t, self.operand(dsts, 0, pc)?, [u32::MAX; 4], pc)?;
            }
            O::LdRaw | O::LdStructured => {
                let resource = self.operand(srcs, srcs.len().saturating_sub(1), pc)?;
                let located = self.locate(t, resource, pc)?;
                let first = self.read(t, self.operand(srcs, 0, pc)?, pc)?[0];
                let second = if opcode == O::LdStructured {
                    self.read(t, self.operand(srcs, 1, pc)?, pc)?[0]
                } else {
                    0
                };
                let dst = self.operand(dsts, 0, pc)?;
                let used = (0..4)
                    .filter(|c| dst.mask() & (1 << c) != 0)
                    .fold(0, |m, c| m | 1 << (resource.selection.component(c) & 3));
                let access = Dwords {
                    address: [first, second],
                    mask: used,
                    touch: Touch::Load,
                    values: [0; 4],
                };
                self.touch_dwords(t, located.target, access, pc)?;
                let value = self
                    .get(located.target)
                    .map_or([0; 4], |r| r.load_dwords([first, second]));
                self.write(t, dst, swizzled(resource, value), pc)?;
            }
            O::StoreRaw | O::StoreStructured => {
                let resource = self.operand(dsts, 0, pc)?;
                let located = self.locate(t, resource, pc)?;
                if matches!(located.target, Target::Srv(_)) {
                    return Err(self.fail(pc, "a store to a shader resource view"));
                }
                let first = self.read(t, self.operand(srcs, 0, pc)?, pc)?[0];
                let (second, value) = if opcode == O::StoreStructured {
                    let second = self.read(t, self.operand(srcs, 1, pc)?, pc)?[0];
                    (second, self.read(t, self.operand(srcs, 2, pc)?, pc)?)
                } else {
                    (0, self.read(t, self.operand(srcs, 1, pc)?, pc)?)
                };
                let mask = resource.mask();
                let access = Dwords {
                    address: [first, second],
                    mask,
                    touch: Touch::Store,
                    values: value,
                };
                self.touch_dwords(t, located.target, access, pc)?;
                if let Some(r) = self.get_mut(located.target) {
                    r.store_dwords([first, second], mask, value);
                }
            }
            O::LdUavTyped => {
                let resource = self.operand(srcs, 1, pc)?;
                let located = self.locate(t, resource, pc)?;
                let coords = self.read(t, self.operand(srcs, 0, pc)?, pc)?;
                let coords = self.address(&located, coords, pc)?;
                let value = self
                    .get(located.target)
                    .map_or([0; 4], |r| r.load_typed(coords, 0));
                self.write(t, self.operand(dsts, 0, pc)?, swizzled(resource, value), pc)?;
            }
            O::StoreUavTyped => {
                let resource = self.operand(dsts, 0, pc)?;
                let located = self.locate(t, resource, pc)?;
                let coords = self.read(t, self.operand(srcs, 0, pc)?, pc)?;
                let coords = self.address(&located, coords, pc)?;
                let value = self.read(t, self.operand(srcs, 1, pc)?, pc)?;
                if let Some(r) = self.get_mut(located.target) {
                    r.store_typed(coords, value);
                }
            }
            O::Ld => self.ld(t, instruction, pc)?,
            O::Bufinfo => {
                let resource = self.operand(srcs, 0, pc)?;
                let located = self.locate(t, resource, pc)?;
                let value = self.get(located.target).map_or([0; 4], |r| r.dimensions(0));
                self.write(t, self.operand(dsts, 0, pc)?, swizzled(resource, value), pc)?;
            }
            O::Resinfo => self.resinfo(t, instruction, pc)?,
            O::ImmAtomicAlloc | O::ImmAtomicConsume => {
                let resource = self.operand(srcs, 0, pc)?;
                let located = self.locate(t, resource, pc)?;
                if !matches!(located.target, Target::Uav(_)) {
                    return Err(self.fail(pc, "a UAV counter on something other than a u#"));
                }
                // alloc returns the counter before incrementing, consume the counter after
                // decrementing (both wrap).
                let value = match self.get_mut(located.target) {
                    Some(r) if opcode == O::ImmAtomicAlloc => r.counter_increment(),
                    Some(r) => r.counter_decrement(),
                    None => 0,
                };
                self.write(t, self.operand(dsts, 0, pc)?, [value; 4], pc)?;
            }
            _ => {
                return Err(self.fail(
                    pc,
                    format!("`{}` is not a memory instruction", opcode.name()),
                ))
            }
        }
        // After the load, which may read a register the status overwrites.
        if status {
            if let Some(operand) = dsts.get(1) {
                self.write(t, operand, [0; 4], pc)?;
            }
        }
        Ok(())
    }

    /// `ld` (and `ld_indexable`) on a typed buffer or texture: for textures with mips the
    /// coordinate's component after the address is the mip level; `_aoffimmi` offsets add
    /// to the spatial coordinates.
    fn ld(&mut self, t: &mut Thread, instruction: &Instruction, pc: usize) -> Result<()> {
        let program = self.plan.program;
        let dsts = program.dsts(instruction);
        let srcs = program.srcs(instruction);
        let resource = self.operand(srcs, 1, pc)?;
        let located = self.locate(t, resource, pc)?;
        let Access::Typed(dimension) = located.access else {
            return Err(self.fail(pc, "`ld` on a raw or structured buffer"));
        };
        let (count, spatial) = match dimension {
            ResourceDimension::Texture2DMS
            | ResourceDimension::Texture2DMSArray
            | ResourceDimension::TextureCube
            | ResourceDimension::TextureCubeArray => {
                return Err(self.fail(pc, format!("`ld` on a {} resource", dimension.name())))
            }
            _ => coordinate_counts(dimension)
                .ok_or_else(|| self.fail(pc, "`ld` on a resource of unknown dimension"))?,
        };
        let coords = self.read(t, self.operand(srcs, 0, pc)?, pc)?;
        let mut address: [u32; 3] = std::array::from_fn(|i| if i < count { coords[i] } else { 0 });
        let mip = if dimension == ResourceDimension::Buffer {
            0
        } else {
            coords[count]
        };
        if let Some(offsets) = instruction.extended.offsets {
            for (a, o) in address.iter_mut().zip(offsets).take(spatial) {
                *a = a.wrapping_add(o as i32 as u32);
            }
        }
        let value = self
            .get(located.target)
            .map_or([0; 4], |r| r.load_typed(address, mip));
        self.write(t, self.operand(dsts, 0, pc)?, swizzled(resource, value), pc)
    }

    /// `resinfo`: width, height, depth or array size, and mip count at a mip level, as
    /// floats, reciprocal floats (the spatial sizes only) or integers.
    fn resinfo(&mut self, t: &mut Thread, instruction: &Instruction, pc: usize) -> Result<()> {
        let program = self.plan.program;
        let dsts = program.dsts(instruction);
        let srcs = program.srcs(instruction);
        let resource = self.operand(srcs, 1, pc)?;
        let located = self.locate(t, resource, pc)?;
        let Access::Typed(dimension) = located.access else {
            return Err(self.fail(pc, "`resinfo` on a raw or structured buffer"));
        };
        if dimension == ResourceDimension::Buffer {
            return Err(self.fail(pc, "`resinfo` on a buffer (bufinfo gives its size)"));
        }
        let spatial = coordinate_counts(dimension).map_or(0, |c| c.1);
        let mip = self.read(t, self.operand(srcs, 0, pc)?, pc)?[0];
        let uav = matches!(located.target, Target::Uav(_));
        let sizes = match self.get(located.target) {
            None => [0; 4],
            // A UAV views one mip level: any other level is out of range.
            Some(r) if uav => {
                let [w, h, d, _] = if mip == 0 { r.dimensions(0) } else { [0; 4] };
                [w, h, d, 1]
            }
            Some(r) => r.dimensions(mip),
        };
        let value = match instruction
            .info_return_type
            .unwrap_or(InfoReturnType::Float)
        {
            InfoReturnType::Uint => sizes,
            InfoReturnType::Float => sizes.map(|v| (v as f32).to_bits()),
            InfoReturnType::RcpFloat => std::array::from_fn(|i| {
                let v = sizes[i] as f32;
                if i < spatial {
                    (1.0 / v).to_bits()
                } else {
                    v.to_bits()
                }
            }),
        };
        self.write(t, self.operand(dsts, 0, pc)?, swizzled(resource, value), pc)
    }
}
