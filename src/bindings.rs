//! Choosing descriptor bindings: the caller maps each D3D register range to a Vulkan
//! (descriptor set, binding, array offset).
//!
//! A range is described by a [`RangeKey`]: its descriptor class (CBV, sampler, SRV, UAV or a
//! UAV's counter), whether it is a buffer or an image, its register space and its registers
//! (`lower..=upper`, `upper` = `None` when unbounded). A [`BindingMapper`] answers with a
//! [`Binding`]; a range it does not map is an error naming the range. Descriptor `i` of the
//! binding holds register `lower + i - array_offset`: an instruction reading register `r`
//! of the range reads array element `r - lower + array_offset`.
//!
//! Mappings come either from code (implement [`BindingMapper`]) or from data
//! ([`BindingMap`], JSON; `dxbc2spirv translate --bindings MAP.json`).
//!
//! # The default layout ([`DefaultBindings`])
//!
//! Descriptor set = register space; array offset 0; the binding depends only on the range's
//! class and lower bound (`lower`), in three tiers:
//!
//! 1. **D3D11 slots**: binding = class base + `lower` when `lower` is below the class's
//!    D3D11 slot count. Bases and slots: constant buffers 0 (16 slots: D3D11's `cb0`–`cb13`,
//!    then `cb14` and the class linkage's `cb15`), samplers 16 (16),
//!    shader resources 32 (128), UAVs 160 (64), UAV counters 224 (64; = the UAV's binding +
//!    64). Bindings 0–287. Every SM4.0–5.0 register is here.
//! 2. **Other registers below 2^29** (SM5.1: `t199`, `u100`, `s20`, `cb16`…): binding =
//!    288 + 5 × `lower` + c, with c = 0 for constant buffers, 1 samplers, 2 shader resources,
//!    3 UAVs, 4 UAV counters. So `t199` is binding 1285, `u100` 791 and its counter 792.
//!    Bindings 288 … 2 684 354 847.
//! 3. **Registers from 2^29 on** (only handcrafted shaders have them): two 32-bit numbers
//!    cannot hold five classes of 2^32 registers, so these ranges are numbered per shader:
//!    in each set, the distinct (class, `lower`) pairs of this tier, sorted by class (in the
//!    order above) and then by `lower`, take bindings 2 684 354 848 (0xA000_0120), +1, …
//!    The numbering depends only on which such ranges the shader declares, not on their
//!    order ([`BindingMapper::map_shader`]; [`DefaultBindings::map`] alone leaves them
//!    unmapped).
//!
//! Two ranges of one shader share a (set, binding) only when they have the same class,
//! space and lower bound, which D3D reads as the same registers (tiers 1 and 2 use disjoint
//! binding numbers, tier 2 gives each class its own residue modulo 5, tier 3 starts above
//! tier 2). A range of several registers is one arrayed binding (descriptor count = the
//! register count, or a runtime array when unbounded), so `t2[0:7]` in space 1 is set 1,
//! binding 32, 8 descriptors, and a range's upper bound never changes its binding.
//!
//! The set stays the space even for large spaces (space 0xFFFF_FFFF is set 0xFFFF_FFFF):
//! the `DescriptorSet` decoration is a 32-bit literal, so the module is valid, and a set
//! number that can be read off the shader is worth more than one that depends on which other
//! spaces the shader declares. A Vulkan pipeline layout has only `maxBoundDescriptorSets`
//! sets (at least 4; lavapipe 8), so a shader using larger spaces needs a map to run
//! ([`BindingMap`]); so does one with registers in tier 3, whose binding numbers in the
//! billions some drivers' set layouts cannot hold.
//!
//! # Descriptor types
//!
//! Ranges given one set and binding must have one Vulkan descriptor type
//! ([`DescriptorType`]): a [`BindingMap`] refuses entries that cannot (when it is read), and
//! the translation refuses ranges that do not (once their declarations are known).
//!
//! # Class linkage
//!
//! A program with interfaces (`dcl_interface`) also needs its class-instance data: the
//! binding pass asks the mapper for constant buffer [`CLASS_LINKAGE_REGISTER`] (`cb15`) of
//! space 0, so the default layout puts it at set 0, binding 15. Its contents are described
//! in `src/spirv/linkage.rs`.

use std::fmt;

use crate::error::{Error, Location, Result};

/// The class of a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DescriptorClass {
    /// A constant buffer (`cb#`): a uniform buffer.
    ConstantBuffer,
    /// A sampler (`s#`).
    Sampler,
    /// A shader resource view (`t#`): sampled image, texel buffer or read-only storage buffer.
    ShaderResource,
    /// An unordered access view (`u#`): storage image, storage texel buffer or storage buffer.
    UnorderedAccess,
    /// The counter of a UAV (`imm_atomic_alloc`/`consume`): a storage buffer.
    UavCounter,
}

impl DescriptorClass {
    /// The name used in maps and reflection: `cbv`, `sampler`, `srv`, `uav`, `uav_counter`.
    pub fn name(self) -> &'static str {
        match self {
            DescriptorClass::ConstantBuffer => "cbv",
            DescriptorClass::Sampler => "sampler",
            DescriptorClass::ShaderResource => "srv",
            DescriptorClass::UnorderedAccess => "uav",
            DescriptorClass::UavCounter => "uav_counter",
        }
    }

    /// The class for a name of [`DescriptorClass::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "cbv" => DescriptorClass::ConstantBuffer,
            "sampler" => DescriptorClass::Sampler,
            "srv" => DescriptorClass::ShaderResource,
            "uav" => DescriptorClass::UnorderedAccess,
            "uav_counter" => DescriptorClass::UavCounter,
            _ => return None,
        })
    }

    /// The register prefix (`cb`, `s`, `t`, `u`).
    fn prefix(self) -> &'static str {
        match self {
            DescriptorClass::ConstantBuffer => "cb",
            DescriptorClass::Sampler => "s",
            DescriptorClass::ShaderResource => "t",
            DescriptorClass::UnorderedAccess | DescriptorClass::UavCounter => "u",
        }
    }
}

/// Whether a descriptor is a buffer (constant, raw, structured or typed buffer, counter) or
/// an image (texture, storage image, sampler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DescriptorKind {
    /// A buffer.
    Buffer,
    /// An image or a sampler.
    Image,
}

impl DescriptorKind {
    /// `buffer` or `image`.
    pub fn name(self) -> &'static str {
        match self {
            DescriptorKind::Buffer => "buffer",
            DescriptorKind::Image => "image",
        }
    }
}

/// A register range to bind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RangeKey {
    /// The descriptor class.
    pub class: DescriptorClass,
    /// Buffer or image.
    pub kind: DescriptorKind,
    /// The register space.
    pub space: u32,
    /// The first register.
    pub lower: u32,
    /// The last register (inclusive), `None` when unbounded.
    pub upper: Option<u32>,
}

impl fmt::Display for RangeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.class.prefix();
        let counter = if self.class == DescriptorClass::UavCounter {
            " counter"
        } else {
            ""
        };
        match self.upper {
            Some(u) if u == self.lower => write!(f, "{p}{}", self.lower)?,
            Some(u) => write!(f, "{p}{}..{p}{u}", self.lower)?,
            None => write!(f, "{p}{}..(unbounded)", self.lower)?,
        }
        write!(
            f,
            "{counter} ({}) in space {}",
            self.kind.name(),
            self.space
        )
    }
}

/// Where a range is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Binding {
    /// The descriptor set.
    pub set: u32,
    /// The binding number.
    pub binding: u32,
    /// The array element of the range's first register.
    pub array_offset: u32,
}

/// Where a constant buffer placed in push constants goes: its byte offset in the one
/// push-constant block of the entry point and, optionally, the bytes the layer's
/// `VkPushConstantRange` gives it (a constant buffer declared larger is an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PushConstantPlacement {
    /// The byte offset of the buffer's first vector (a multiple of 16).
    pub offset: u32,
    /// The bytes the layer provides; `None`: as many as the shader declares.
    pub size: Option<u32>,
}

/// Chooses the binding of each register range.
pub trait BindingMapper {
    /// The binding of a range, or `None` when the range is not mapped.
    fn map(&self, range: &RangeKey) -> Option<Binding>;

    /// For a constant-buffer range: `Some` places it in push constants instead of a
    /// descriptor (then [`BindingMapper::map`] is not asked about it). The provided form
    /// places none.
    fn push_constant(&self, range: &RangeKey) -> Option<PushConstantPlacement> {
        let _ = range;
        None
    }

    /// The bindings of all the ranges of one shader (the same order; a UAV's counter is a
    /// range of class [`DescriptorClass::UavCounter`]). The provided form asks
    /// [`BindingMapper::map`] about each; a mapper whose choice for one range depends on the
    /// shader's other ranges ([`DefaultBindings`] for registers from 2^29 on) overrides it.
    fn map_shader(&self, ranges: &[RangeKey]) -> Vec<Option<Binding>> {
        ranges.iter().map(|r| self.map(r)).collect()
    }
}

/// The binding of a range, or an error naming an unmapped range.
pub fn resolve(mapper: &dyn BindingMapper, range: &RangeKey) -> Result<Binding> {
    mapper.map(range).ok_or_else(|| unmapped(range))
}

fn unmapped(range: &RangeKey) -> Error {
    Error::new(
        Location::None,
        format!("no descriptor binding is mapped for {range}"),
    )
}

/// The bindings of all the ranges of one shader, chosen at once
/// ([`BindingMapper::map_shader`]), looked up range by range.
#[derive(Debug, Clone, Default)]
pub struct ShaderBindings {
    /// Each range with its binding, sorted by range (a shader has few: sorting and bisecting
    /// costs less than hashing).
    chosen: smallvec::SmallVec<[(RangeKey, Option<Binding>); 16]>,
}

impl ShaderBindings {
    /// Asks `mapper` about the ranges of one shader (repeated ranges keep their first answer).
    pub fn new(mapper: &dyn BindingMapper, ranges: &[RangeKey]) -> Self {
        let bindings = mapper.map_shader(ranges);
        let mut chosen: smallvec::SmallVec<[(RangeKey, Option<Binding>); 16]> = ranges
            .iter()
            .copied()
            .zip(bindings.into_iter().chain(std::iter::repeat(None)))
            .collect();
        // A stable sort keeps repeated ranges in order, so the first answer is kept.
        chosen.sort_by_key(|&(range, _)| range);
        chosen.dedup_by_key(|&mut (range, _)| range);
        ShaderBindings { chosen }
    }

    /// The binding of `range` (one of those given to [`ShaderBindings::new`]), or an error
    /// naming it when the mapper did not map it.
    pub fn resolve(&self, range: &RangeKey) -> Result<Binding> {
        self.chosen
            .binary_search_by_key(range, |&(r, _)| r)
            .ok()
            .and_then(|i| self.chosen[i].1)
            .ok_or_else(|| unmapped(range))
    }
}

/// The constant-buffer register (space 0) of the class-linkage instance data: a program that
/// declares interfaces (`dcl_interface`) reads, per interface slot, the function table the
/// bound class instance selects and its `this[]` data from this buffer (layout in
/// `src/spirv/linkage.rs` and `docs/instruction-set.md`). The binding pass asks the mapper for `cb15` of
/// space 0 as for any constant buffer; D3D11 applications bind only `cb0`–`cb13`, so the
/// register is free in every SM5.0 program.
pub const CLASS_LINKAGE_REGISTER: u32 = 15;

/// Binding base of constant buffers in the default layout.
pub const CBV_BINDING_BASE: u32 = 0;
/// Binding base of samplers in the default layout.
pub const SAMPLER_BINDING_BASE: u32 = 16;
/// Binding base of shader resource views in the default layout.
pub const SRV_BINDING_BASE: u32 = 32;
/// Binding base of UAVs in the default layout.
pub const UAV_BINDING_BASE: u32 = 160;
/// Binding base of UAV counters in the default layout (UAV binding + 64).
pub const UAV_COUNTER_BINDING_BASE: u32 = 224;
/// First binding of the default layout's second tier (registers beyond the D3D11 slots):
/// `EXTENDED_BINDING_BASE + 5 * lower + class code`.
pub const EXTENDED_BINDING_BASE: u32 = 288;
/// Registers from this one on are in the default layout's third tier (numbered per shader).
pub const EXTENDED_REGISTER_LIMIT: u32 = 1 << 29;
/// First binding of the default layout's third tier.
pub const PER_SHADER_BINDING_BASE: u32 = EXTENDED_BINDING_BASE + 5 * EXTENDED_REGISTER_LIMIT;

/// The default layout (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultBindings;

impl DefaultBindings {
    /// The class's code in the second and third tiers, its first-tier base and D3D11 slot count.
    fn class_layout(class: DescriptorClass) -> (u32, u32, u32) {
        match class {
            DescriptorClass::ConstantBuffer => (0, CBV_BINDING_BASE, 16),
            DescriptorClass::Sampler => (1, SAMPLER_BINDING_BASE, 16),
            DescriptorClass::ShaderResource => (2, SRV_BINDING_BASE, 128),
            DescriptorClass::UnorderedAccess => (3, UAV_BINDING_BASE, 64),
            DescriptorClass::UavCounter => (4, UAV_COUNTER_BINDING_BASE, 64),
        }
    }
}

impl BindingMapper for DefaultBindings {
    /// The first two tiers; `None` for registers from [`EXTENDED_REGISTER_LIMIT`] on (see
    /// [`BindingMapper::map_shader`]).
    fn map(&self, range: &RangeKey) -> Option<Binding> {
        let (code, base, slots) = Self::class_layout(range.class);
        let binding = if range.lower < slots {
            base + range.lower
        } else if range.lower < EXTENDED_REGISTER_LIMIT {
            EXTENDED_BINDING_BASE + 5 * range.lower + code
        } else {
            return None;
        };
        Some(Binding {
            set: range.space,
            binding,
            array_offset: 0,
        })
    }

    /// All three tiers.
    fn map_shader(&self, ranges: &[RangeKey]) -> Vec<Option<Binding>> {
        // The third tier's (set, class code, lower), sorted and without repeats: a range's
        // binding is the base plus the number of smaller entries of its set.
        let mut third: Vec<(u32, u32, u32)> = ranges
            .iter()
            .filter(|r| r.lower >= EXTENDED_REGISTER_LIMIT)
            .map(|r| (r.space, Self::class_layout(r.class).0, r.lower))
            .collect();
        third.sort_unstable();
        third.dedup();
        ranges
            .iter()
            .map(|r| {
                if r.lower < EXTENDED_REGISTER_LIMIT {
                    return self.map(r);
                }
                let entry = (r.space, Self::class_layout(r.class).0, r.lower);
                let rank = third.binary_search(&entry).ok()?;
                let first = third.partition_point(|e| e.0 < r.space);
                let binding = u32::try_from(rank - first)
                    .ok()
                    .and_then(|n| PER_SHADER_BINDING_BASE.checked_add(n))?;
                Some(Binding {
                    set: r.space,
                    binding,
                    array_offset: 0,
                })
            })
            .collect()
    }
}

/// A Vulkan descriptor type (`VkDescriptorType`): every descriptor of one binding has the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// `UNIFORM_BUFFER`: constant buffers.
    UniformBuffer,
    /// `SAMPLER`: samplers.
    Sampler,
    /// `SAMPLED_IMAGE`: shader resource views of textures.
    SampledImage,
    /// `UNIFORM_TEXEL_BUFFER`: typed buffer shader resource views.
    UniformTexelBuffer,
    /// `STORAGE_IMAGE`: UAVs of textures.
    StorageImage,
    /// `STORAGE_TEXEL_BUFFER`: typed buffer UAVs.
    StorageTexelBuffer,
    /// `STORAGE_BUFFER`: raw and structured buffers (SRV or UAV) and UAV counters.
    StorageBuffer,
}

impl DescriptorType {
    const ALL: [DescriptorType; 7] = [
        DescriptorType::UniformBuffer,
        DescriptorType::Sampler,
        DescriptorType::SampledImage,
        DescriptorType::UniformTexelBuffer,
        DescriptorType::StorageImage,
        DescriptorType::StorageTexelBuffer,
        DescriptorType::StorageBuffer,
    ];

    /// The name in messages (`storage buffer`, …).
    pub fn name(self) -> &'static str {
        match self {
            DescriptorType::UniformBuffer => "uniform buffer",
            DescriptorType::Sampler => "sampler",
            DescriptorType::SampledImage => "sampled image",
            DescriptorType::UniformTexelBuffer => "uniform texel buffer",
            DescriptorType::StorageImage => "storage image",
            DescriptorType::StorageTexelBuffer => "storage texel buffer",
            DescriptorType::StorageBuffer => "storage buffer",
        }
    }

    /// The descriptor type the translation gives a range of `class` and `kind`;
    /// `raw_or_structured` tells a raw or structured buffer (a storage buffer) from a typed
    /// one (a texel buffer). `None` for a class and kind no declaration has (a constant buffer
    /// or counter that is an image, a sampler that is a buffer).
    pub fn of(
        class: DescriptorClass,
        kind: DescriptorKind,
        raw_or_structured: bool,
    ) -> Option<Self> {
        use DescriptorClass as C;
        use DescriptorKind::{Buffer, Image};
        Some(match (class, kind) {
            (C::ConstantBuffer, Buffer) => DescriptorType::UniformBuffer,
            (C::Sampler, Image) => DescriptorType::Sampler,
            (C::ShaderResource, Image) => DescriptorType::SampledImage,
            (C::UnorderedAccess, Image) => DescriptorType::StorageImage,
            (C::ShaderResource | C::UnorderedAccess | C::UavCounter, Buffer)
                if raw_or_structured || class == C::UavCounter =>
            {
                DescriptorType::StorageBuffer
            }
            (C::ShaderResource, Buffer) => DescriptorType::UniformTexelBuffer,
            (C::UnorderedAccess, Buffer) => DescriptorType::StorageTexelBuffer,
            _ => return None,
        })
    }

    /// The types a range of `class` can have, of `kind` or of either kind (`None`).
    pub fn possible(class: DescriptorClass, kind: Option<DescriptorKind>) -> DescriptorTypes {
        let kinds = match kind {
            Some(k) => vec![k],
            None => vec![DescriptorKind::Buffer, DescriptorKind::Image],
        };
        let mut types = DescriptorTypes::default();
        for k in kinds {
            for raw in [false, true] {
                if let Some(t) = DescriptorType::of(class, k, raw) {
                    types = types.with(t);
                }
            }
        }
        types
    }
}

/// A set of [`DescriptorType`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DescriptorTypes(u8);

impl DescriptorTypes {
    /// The set with `ty` added.
    pub fn with(self, ty: DescriptorType) -> Self {
        DescriptorTypes(self.0 | 1 << ty as u8)
    }

    /// Whether the set holds no type.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the two sets share a type.
    pub fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }
}

impl From<DescriptorType> for DescriptorTypes {
    fn from(ty: DescriptorType) -> Self {
        DescriptorTypes::default().with(ty)
    }
}

impl fmt::Display for DescriptorTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = DescriptorType::ALL
            .iter()
            .filter(|t| self.intersects((**t).into()))
            .map(|t| t.name())
            .collect();
        f.write_str(&names.join(" or "))
    }
}

/// A pair `(i, j)`, `i < j`, of bindings that no Vulkan pipeline layout can hold together:
/// the same set and binding number (whatever their array elements: a binding has one
/// descriptor type for all its elements) and no descriptor type in common; `j` is the first
/// binding that conflicts with an earlier one, `i` the first earlier one it conflicts with.
/// Bindings of one type may share a binding number, overlapping or not (Vulkan lets several
/// variables use one binding of a compatible type).
pub fn type_conflict(bindings: &[(Binding, DescriptorTypes)]) -> Option<(usize, usize)> {
    // Few bindings (every ordinary shader): compare each with the earlier ones, without
    // allocating; the same answer as the grouping.
    if bindings.len() <= 32 {
        type_conflict_pairwise(bindings)
    } else {
        type_conflict_grouped(bindings)
    }
}

/// [`type_conflict`] by comparing every binding with the earlier ones (quadratic).
fn type_conflict_pairwise(bindings: &[(Binding, DescriptorTypes)]) -> Option<(usize, usize)> {
    (0..bindings.len()).find_map(|j| {
        let (b, types) = bindings[j];
        (0..j)
            .find(|&i| {
                let (a, other) = bindings[i];
                (a.set, a.binding) == (b.set, b.binding) && !other.intersects(types)
            })
            .map(|i| (i, j))
    })
}

/// [`type_conflict`] by sorting the bindings into groups of one set and binding.
fn type_conflict_grouped(bindings: &[(Binding, DescriptorTypes)]) -> Option<(usize, usize)> {
    let mut order: Vec<usize> = (0..bindings.len()).collect();
    order.sort_by_key(|&i| (bindings[i].0.set, bindings[i].0.binding, i));
    let mut best: Option<(usize, usize)> = None;
    for group in order.chunk_by(|&a, &b| {
        (bindings[a].0.set, bindings[a].0.binding) == (bindings[b].0.set, bindings[b].0.binding)
    }) {
        // The first binding of each distinct type set seen so far (at most 128 sets).
        let mut firsts: Vec<(DescriptorTypes, usize)> = Vec::new();
        for &j in group {
            let types = bindings[j].1;
            let earlier = firsts
                .iter()
                .filter(|(t, _)| !t.intersects(types))
                .map(|&(_, i)| i)
                .min();
            if let Some(i) = earlier {
                if best.is_none_or(|(_, b)| j < b) {
                    best = Some((i, j));
                }
                break;
            }
            if !firsts.iter().any(|(t, _)| *t == types) {
                firsts.push((types, j));
            }
        }
    }
    best
}

/// One entry of a [`BindingMap`]: registers `first..=last` of a class in a space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapEntry {
    /// The descriptor class.
    pub class: DescriptorClass,
    /// Only buffers or only images; `None` for both.
    pub kind: Option<DescriptorKind>,
    /// The register space.
    pub space: u32,
    /// The first register.
    pub first: u32,
    /// The last register (inclusive), `None` for all registers from `first` on.
    pub last: Option<u32>,
    /// The binding of register `first` (unused for a push-constant entry).
    pub binding: Binding,
    /// `Some`: the entry places constant buffer `first` in push constants (class `cbv`, one
    /// register) instead of binding it.
    pub push_constant: Option<PushConstantPlacement>,
}

impl MapEntry {
    /// The binding of `range` when this entry covers all its registers.
    fn covers(&self, range: &RangeKey) -> Option<Binding> {
        if self.push_constant.is_some() {
            return None;
        }
        self.covers_registers(range)
    }

    /// The binding of `range` when this entry's class, kind, space and registers cover it
    /// (whether or not it is a push-constant entry).
    fn covers_registers(&self, range: &RangeKey) -> Option<Binding> {
        if self.class != range.class
            || self.space != range.space
            || self.kind.is_some_and(|k| k != range.kind)
            || range.lower < self.first
        {
            return None;
        }
        let fits = match (self.last, range.upper) {
            (None, _) => true,
            (Some(last), Some(upper)) => upper <= last,
            (Some(_), None) => false,
        };
        if !fits {
            return None;
        }
        let array_offset = self
            .binding
            .array_offset
            .checked_add(range.lower - self.first)?;
        Some(Binding {
            array_offset,
            ..self.binding
        })
    }
}

/// A mapping given as data: the first entry covering a range binds it; ranges no entry
/// covers are bound by the default layout when `fallback_to_default` is set, and are errors
/// otherwise.
///
/// JSON form (`last` null or absent = unbounded, `kind` absent = both, `array_offset`
/// absent = 0):
///
/// ```json
/// { "fallback_to_default": false,
///   "ranges": [
///     { "class": "srv", "kind": "image", "space": 0, "first": 10, "last": null,
///       "set": 2, "binding": 0, "array_offset": 4 } ] }
/// ```
///
/// Any other key, at the top or in an entry, is an error naming it, its entry and the keys
/// allowed. A Vulkan binding holds descriptors of one type (see [`DescriptorType::of`]:
/// constant buffer → uniform buffer; sampler; SRV texture → sampled image, typed buffer →
/// uniform texel buffer, raw or structured buffer → storage buffer; UAV texture → storage
/// image, typed buffer → storage texel buffer, raw or structured → storage buffer; UAV
/// counter → storage buffer). Entries on one set and binding whose classes and kinds share
/// no type are refused when the map is read, whatever their array elements (an SRV `buffer`
/// entry may still be either buffer type, so the ranges themselves are checked when the
/// shader is translated). Entries of one type may share a binding, in separate array
/// elements (one arrayed binding) or even the same ones (Vulkan lets variables alias a
/// descriptor).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BindingMap {
    /// The entries, tried in order.
    pub entries: Vec<MapEntry>,
    /// Bind ranges no entry covers with [`DefaultBindings`].
    pub fallback_to_default: bool,
}

impl BindingMapper for BindingMap {
    /// The first entry covering the range decides: a push-constant entry places it in push
    /// constants.
    fn push_constant(&self, range: &RangeKey) -> Option<PushConstantPlacement> {
        self.entries
            .iter()
            .find(|e| e.covers_registers(range).is_some())
            .and_then(|e| e.push_constant)
    }

    fn map(&self, range: &RangeKey) -> Option<Binding> {
        self.entries
            .iter()
            .find_map(|e| e.covers(range))
            .or_else(|| {
                self.fallback_to_default
                    .then(|| DefaultBindings.map(range))
                    .flatten()
            })
    }

    /// The entries' bindings; with `fallback_to_default`, [`DefaultBindings::map_shader`]
    /// over the ranges no entry covers.
    fn map_shader(&self, ranges: &[RangeKey]) -> Vec<Option<Binding>> {
        let mut chosen: Vec<Option<Binding>> = ranges
            .iter()
            .map(|r| self.entries.iter().find_map(|e| e.covers(r)))
            .collect();
        if self.fallback_to_default {
            let rest: Vec<usize> = (0..ranges.len()).filter(|&i| chosen[i].is_none()).collect();
            let keys: Vec<RangeKey> = rest.iter().map(|&i| ranges[i]).collect();
            for (i, b) in rest.into_iter().zip(DefaultBindings.map_shader(&keys)) {
                chosen[i] = b;
            }
        }
        chosen
    }
}

/// The keys a binding map may have at the top level.
const MAP_KEYS: &[&str] = &["fallback_to_default", "ranges"];
/// The keys an entry of `ranges` may have.
const ENTRY_KEYS: &[&str] = &[
    "class",
    "kind",
    "space",
    "first",
    "last",
    "set",
    "binding",
    "array_offset",
    "push_constant",
    "offset",
    "size",
];

/// An error naming the first key of `object` not in `allowed`.
fn unknown_key(
    object: &serde_json::Map<String, serde_json::Value>,
    allowed: &[&str],
) -> std::result::Result<(), String> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(format!(
            "unknown key {key:?} (allowed: {})",
            allowed.join(", ")
        )),
    }
}

impl fmt::Display for MapEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.class.prefix();
        if let Some(push) = self.push_constant {
            write!(
                f,
                "{} {p}{} in space {} in push constants at offset {}",
                self.class.name(),
                self.first,
                self.space,
                push.offset
            )?;
            if let Some(size) = push.size {
                write!(f, " ({size} bytes)")?;
            }
            return Ok(());
        }
        write!(f, "{} ", self.class.name())?;
        if let Some(kind) = self.kind {
            write!(f, "{} ", kind.name())?;
        }
        match self.last {
            Some(l) if l == self.first => write!(f, "{p}{}", self.first)?,
            Some(l) => write!(f, "{p}{}..{p}{l}", self.first)?,
            None => write!(f, "{p}{}..(unbounded)", self.first)?,
        }
        write!(
            f,
            " in space {} at set {} binding {} offset {}",
            self.space, self.binding.set, self.binding.binding, self.binding.array_offset
        )
    }
}

impl BindingMap {
    /// Parses the JSON form. An unknown key, a value of the wrong type, or two entries on one
    /// set and binding that cannot have the same descriptor type is an error naming the
    /// entry.
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |m: String| Error::new(Location::None, format!("binding map: {m}"));
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("expected an object".into()))?;
        unknown_key(object, MAP_KEYS).map_err(|m| bad(format!("{m} at the top level")))?;
        let fallback_to_default = match object.get("fallback_to_default") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| bad("fallback_to_default must be true or false".into()))?,
        };
        let ranges = match object.get("ranges") {
            None => &Vec::new(),
            Some(v) => v
                .as_array()
                .ok_or_else(|| bad("ranges must be an array".into()))?,
        };
        let mut entries = Vec::new();
        for (i, entry) in ranges.iter().enumerate() {
            entries.push(parse_entry(entry).map_err(|m| bad(format!("ranges[{i}]: {m}")))?);
        }
        let map = BindingMap {
            entries,
            fallback_to_default,
        };
        map.check_types().map_err(bad)?;
        map.check_push_constants().map_err(bad)?;
        Ok(map)
    }

    /// Push-constant entries whose sizes are given must not overlap.
    fn check_push_constants(&self) -> std::result::Result<(), String> {
        let sized: Vec<(usize, u32, u32)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let push = e.push_constant?;
                Some((i, push.offset, push.offset.saturating_add(push.size?)))
            })
            .collect();
        for (n, &(i, a0, a1)) in sized.iter().enumerate() {
            for &(j, b0, b1) in &sized[n + 1..] {
                if a0 < b1 && b0 < a1 {
                    return Err(format!(
                        "ranges[{i}] ({}) and ranges[{j}] ({}) overlap in push constants \
                         (bytes {a0} to {} and {b0} to {})",
                        self.entries[i],
                        self.entries[j],
                        a1 - 1,
                        b1 - 1
                    ));
                }
            }
        }
        Ok(())
    }

    /// What the map alone proves: no two entries on one set and binding whose classes and
    /// kinds allow no common descriptor type (an SRV buffer entry may be a texel or a storage
    /// buffer; the translation checks the ranges it binds once their declarations are known).
    fn check_types(&self) -> std::result::Result<(), String> {
        let bound: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].push_constant.is_none())
            .collect();
        let bindings: Vec<(Binding, DescriptorTypes)> = bound
            .iter()
            .map(|&i| {
                let e = &self.entries[i];
                (e.binding, DescriptorType::possible(e.class, e.kind))
            })
            .collect();
        match type_conflict(&bindings) {
            None => Ok(()),
            Some((a, b)) => Err(format!(
                "ranges[{}] ({}, a {}) and ranges[{}] ({}, a {}) share set {} binding {} \
                 but cannot have the same descriptor type (a Vulkan binding has one)",
                bound[a],
                self.entries[bound[a]],
                bindings[a].1,
                bound[b],
                self.entries[bound[b]],
                bindings[b].1,
                bindings[a].0.set,
                bindings[a].0.binding
            )),
        }
    }
}

fn parse_entry(value: &serde_json::Value) -> std::result::Result<MapEntry, String> {
    let object = value.as_object().ok_or("expected an object")?;
    unknown_key(object, ENTRY_KEYS)?;
    let number = |key: &str, default: Option<u32>| -> std::result::Result<u32, String> {
        match object.get(key) {
            None => default.ok_or_else(|| format!("{key} is missing")),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("{key} must be a 32-bit unsigned number")),
        }
    };
    let class = match object.get("class") {
        None => return Err("class is missing".into()),
        Some(v) => v
            .as_str()
            .and_then(DescriptorClass::from_name)
            .ok_or_else(|| format!("class {v} is not cbv, sampler, srv, uav or uav_counter"))?,
    };
    let kind = match object.get("kind") {
        None => None,
        Some(v) => match v.as_str() {
            Some("buffer") => Some(DescriptorKind::Buffer),
            Some("image") => Some(DescriptorKind::Image),
            _ => return Err(format!("kind {v} is not buffer or image")),
        },
    };
    if DescriptorType::possible(class, kind).is_empty() {
        return Err(format!(
            "a {} is never a{} {}: the entry would cover no range",
            class.name(),
            if kind == Some(DescriptorKind::Image) {
                "n"
            } else {
                ""
            },
            kind.map_or("", |k| k.name())
        ));
    }
    let last = match object.get("last") {
        None | Some(serde_json::Value::Null) => None,
        Some(_) => Some(number("last", None)?),
    };
    let first = number("first", None)?;
    let push = match object.get("push_constant") {
        None => false,
        Some(v) => v.as_bool().ok_or("push_constant must be true or false")?,
    };
    if push {
        return parse_push_entry(object, class, first, last, number("space", Some(0))?);
    }
    if let Some(key) = ["offset", "size"]
        .into_iter()
        .find(|k| object.contains_key(*k))
    {
        return Err(format!(
            "{key} belongs to a push-constant entry (\"push_constant\": true)"
        ));
    }
    if last.is_some_and(|l| l < first) {
        return Err("last is below first".into());
    }
    Ok(MapEntry {
        class,
        kind,
        space: number("space", Some(0))?,
        first,
        last,
        binding: Binding {
            set: number("set", None)?,
            binding: number("binding", None)?,
            array_offset: number("array_offset", Some(0))?,
        },
        push_constant: None,
    })
}

/// A push-constant entry: constant buffer `first` (one register) at byte `offset`, with
/// optionally the `size` the layer gives it; descriptor keys do not apply.
fn parse_push_entry(
    object: &serde_json::Map<String, serde_json::Value>,
    class: DescriptorClass,
    first: u32,
    last: Option<u32>,
    space: u32,
) -> std::result::Result<MapEntry, String> {
    if class != DescriptorClass::ConstantBuffer {
        return Err(format!(
            "only constant buffers (cbv) go in push constants, not a {}",
            class.name()
        ));
    }
    if last.is_some_and(|l| l != first) {
        return Err("a push-constant entry places one constant buffer (last = first)".into());
    }
    if let Some(key) = ["kind", "set", "binding", "array_offset"]
        .into_iter()
        .find(|k| object.contains_key(*k))
    {
        return Err(format!(
            "{key} does not apply to a push-constant entry (it has an offset, not a binding)"
        ));
    }
    let number = |key: &str| -> std::result::Result<Option<u32>, String> {
        match object.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("{key} must be a 32-bit unsigned number")),
        }
    };
    let offset = number("offset")?.ok_or("offset is missing")?;
    if !offset.is_multiple_of(16) {
        return Err(format!(
            "offset {offset} is not a multiple of 16 (a constant buffer is an array of \
             16-byte vectors)"
        ));
    }
    let size = number("size")?;
    if size.is_some_and(|s| s == 0 || !s.is_multiple_of(4)) {
        return Err(format!(
            "size {} is not a positive multiple of 4 (VkPushConstantRange)",
            size.unwrap_or(0)
        ));
    }
    Ok(MapEntry {
        class,
        kind: None,
        space,
        first,
        last: Some(first),
        binding: Binding::default(),
        push_constant: Some(PushConstantPlacement { offset, size }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(class: DescriptorClass, space: u32, lower: u32, upper: Option<u32>) -> RangeKey {
        RangeKey {
            class,
            kind: DescriptorKind::Image,
            space,
            lower,
            upper,
        }
    }

    #[test]
    fn default_layout() {
        let t2 = key(DescriptorClass::ShaderResource, 1, 0, Some(7));
        assert_eq!(
            DefaultBindings.map(&t2),
            Some(Binding {
                set: 1,
                binding: 32,
                array_offset: 0
            })
        );
        let u = key(DescriptorClass::UavCounter, 0, 3, Some(3));
        assert_eq!(DefaultBindings.map(&u).map(|b| b.binding), Some(227));
        // Past the D3D11 slots: the second tier, 288 + 5 * lower + class code.
        let far = key(DescriptorClass::ShaderResource, 0, 128, Some(128));
        assert_eq!(DefaultBindings.map(&far).map(|b| b.binding), Some(930));
    }

    /// The first tier is the D3D11 layout every earlier version gave: base + register.
    #[test]
    fn default_layout_keeps_the_d3d11_slots() {
        use DescriptorClass as C;
        for (class, base, slots) in [
            (C::ConstantBuffer, 0, 16),
            (C::Sampler, 16, 16),
            (C::ShaderResource, 32, 128),
            (C::UnorderedAccess, 160, 64),
            (C::UavCounter, 224, 64),
        ] {
            for lower in 0..slots {
                for space in [0, 1, 7] {
                    let range = key(class, space, lower, None);
                    let expected = Binding {
                        set: space,
                        binding: base + lower,
                        array_offset: 0,
                    };
                    assert_eq!(DefaultBindings.map(&range), Some(expected), "{range}");
                }
            }
        }
    }

    /// The documented placements of the second and third tiers.
    #[test]
    fn default_layout_places_every_register() {
        use DescriptorClass as C;
        let at = |class, space, lower, upper| {
            let range = key(class, space, lower, upper);
            let b = DefaultBindings.map_shader(&[range])[0]
                .unwrap_or_else(|| panic!("{range} is not placed"));
            (b.set, b.binding, b.array_offset)
        };
        assert_eq!(at(C::ShaderResource, 3, 199, Some(199)), (3, 1285, 0));
        assert_eq!(at(C::UnorderedAccess, 0, 100, None), (0, 791, 0));
        assert_eq!(at(C::UavCounter, 0, 100, None), (0, 792, 0));
        assert_eq!(at(C::Sampler, 1, 20, Some(25)), (1, 389, 0));
        assert_eq!(at(C::ConstantBuffer, 0, 16, Some(16)), (0, 368, 0));
        assert_eq!(at(C::ShaderResource, u32::MAX, 0, None), (u32::MAX, 32, 0));
        let last = EXTENDED_REGISTER_LIMIT - 1;
        assert_eq!(
            at(C::UavCounter, 2, last, Some(last)),
            (2, PER_SHADER_BINDING_BASE - 1, 0)
        );
        // The third tier: numbered per shader and set, by class and then register, whatever
        // the order of the declarations.
        let third = [
            key(C::UnorderedAccess, 5, u32::MAX, None),
            key(C::ShaderResource, 5, EXTENDED_REGISTER_LIMIT, None),
            key(C::ShaderResource, 5, 0x8000_0000, Some(0x8000_0001)),
            key(C::ShaderResource, 6, u32::MAX, None),
            key(C::ShaderResource, 5, 12, Some(12)),
        ];
        assert_eq!(DefaultBindings.map(&third[0]), None);
        let b: Vec<u32> = DefaultBindings
            .map_shader(&third)
            .iter()
            .map(|b| b.expect("placed").binding)
            .collect();
        let p = PER_SHADER_BINDING_BASE;
        assert_eq!(b, [p + 2, p, p + 1, p, 44]);
    }

    /// A small deterministic generator (xorshift) for the property test.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 16) as u32
        }

        fn pick(&mut self, choices: &[u32]) -> u32 {
            choices[self.next() as usize % choices.len()]
        }
    }

    fn random_range(rng: &mut Rng) -> RangeKey {
        use DescriptorClass as C;
        let classes = [
            C::ConstantBuffer,
            C::Sampler,
            C::ShaderResource,
            C::UnorderedAccess,
            C::UavCounter,
        ];
        let class = classes[rng.next() as usize % classes.len()];
        let kind = if rng.next() & 1 == 0 {
            DescriptorKind::Buffer
        } else {
            DescriptorKind::Image
        };
        let limit = EXTENDED_REGISTER_LIMIT;
        let space = match rng.next() % 3 {
            0 => rng.pick(&[0, 1, 2, 3, u32::MAX, u32::MAX - 1, 0x8000_0000]),
            1 => rng.next() % 4,
            _ => rng.next(),
        };
        let lower = match rng.next() % 4 {
            0 => rng.pick(&[0, 13, 14, 15, 16, 63, 64, 127, 128, 199, 287, 288]),
            1 => rng.pick(&[limit - 1, limit, limit + 1, u32::MAX - 1, u32::MAX]),
            2 => rng.next() % 1024,
            _ => rng.next(),
        };
        let upper = match rng.next() % 3 {
            0 => None,
            1 => Some(lower),
            _ => Some(lower.saturating_add(rng.next() % 100)),
        };
        RangeKey {
            class,
            kind,
            space,
            lower,
            upper,
        }
    }

    /// Over many generated shaders (sets of ranges, pathological spaces and registers
    /// included), the default places every range, two ranges share a (set, binding) exactly
    /// when they have the same class, space and lower bound, the per-range form agrees with
    /// the per-shader one, and the order of the ranges changes nothing.
    #[test]
    fn default_layout_never_gives_two_ranges_one_binding() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut placed = 0;
        for shader in 0..400 {
            let count = 1 + rng.next() as usize % 60;
            let mut ranges: Vec<RangeKey> = (0..count).map(|_| random_range(&mut rng)).collect();
            // Clashes on purpose: the same registers in another class, space or kind.
            let copies: Vec<RangeKey> = ranges.iter().take(5).copied().collect();
            for r in copies {
                ranges.push(RangeKey {
                    class: DescriptorClass::UavCounter,
                    ..r
                });
                ranges.push(RangeKey {
                    space: r.space.wrapping_add(1),
                    ..r
                });
                ranges.push(RangeKey {
                    kind: DescriptorKind::Buffer,
                    upper: None,
                    ..r
                });
            }
            let bindings = DefaultBindings.map_shader(&ranges);
            let mut seen: std::collections::HashMap<(u32, u32), RangeKey> = Default::default();
            for (r, b) in ranges.iter().zip(&bindings) {
                let b = b.unwrap_or_else(|| panic!("shader {shader}: {r} is not placed"));
                assert_eq!(b.set, r.space, "shader {shader}: {r}");
                assert_eq!(b.array_offset, 0, "shader {shader}: {r}");
                if let Some(one) = DefaultBindings.map(r) {
                    assert_eq!(
                        one, b,
                        "shader {shader}: {r}: per range and per shader differ"
                    );
                }
                if let Some(other) = seen.insert((b.set, b.binding), *r) {
                    let same =
                        (other.class, other.space, other.lower) == (r.class, r.space, r.lower);
                    assert!(
                        same,
                        "shader {shader}: {other} and {r} share set {} binding {}",
                        b.set, b.binding
                    );
                }
                placed += 1;
            }
            let mut reversed = ranges.clone();
            reversed.reverse();
            let again = DefaultBindings.map_shader(&reversed);
            for (r, b) in reversed.iter().zip(&again) {
                let i = ranges.iter().position(|x| x == r).unwrap();
                assert_eq!(*b, bindings[i], "shader {shader}: {r} moves with the order");
            }
        }
        assert!(placed > 10_000, "only {placed} ranges generated");
    }

    #[test]
    fn shader_bindings_resolve_each_range() {
        let ranges = [
            key(DescriptorClass::ShaderResource, 0, u32::MAX, None),
            key(DescriptorClass::ShaderResource, 0, 3, None),
        ];
        let chosen = ShaderBindings::new(&DefaultBindings, &ranges);
        assert_eq!(
            chosen.resolve(&ranges[0]).unwrap().binding,
            PER_SHADER_BINDING_BASE
        );
        assert_eq!(chosen.resolve(&ranges[1]).unwrap().binding, 35);
        let error = chosen
            .resolve(&key(DescriptorClass::Sampler, 0, 0, None))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("no descriptor binding is mapped for s0"),
            "{error}"
        );
        let none = ShaderBindings::new(&BindingMap::default(), &ranges);
        let error = none.resolve(&ranges[1]).unwrap_err().to_string();
        assert!(
            error.contains("t3..(unbounded) (image) in space 0"),
            "{error}"
        );
    }

    #[test]
    fn map_with_array_offsets() {
        let map = BindingMap::from_json(
            r#"{"ranges": [
                {"class": "srv", "kind": "image", "space": 0, "first": 10, "last": null,
                 "set": 2, "binding": 0, "array_offset": 4},
                {"class": "srv", "space": 1, "first": 0, "last": 15, "set": 3, "binding": 1}
            ]}"#,
        )
        .unwrap();
        let unbounded = key(DescriptorClass::ShaderResource, 0, 12, None);
        assert_eq!(
            map.map(&unbounded),
            Some(Binding {
                set: 2,
                binding: 0,
                array_offset: 6
            })
        );
        let t2 = key(DescriptorClass::ShaderResource, 1, 8, Some(15));
        assert_eq!(map.map(&t2).map(|b| b.array_offset), Some(8));
        // Too long for the entry: unmapped.
        let long = key(DescriptorClass::ShaderResource, 1, 8, Some(16));
        assert_eq!(map.map(&long), None);
    }

    #[test]
    fn unmapped_range_error_names_the_range() {
        let map = BindingMap::default();
        let range = key(DescriptorClass::ShaderResource, 1, 0, Some(7));
        let error = resolve(&map, &range).unwrap_err().to_string();
        assert!(error.contains("t0..t7 (image) in space 1"), "{error}");
        let fallback = BindingMap {
            fallback_to_default: true,
            ..BindingMap::default()
        };
        assert_eq!(resolve(&fallback, &range).unwrap().binding, 32);
    }

    /// The descriptor type of each class and kind, as the back end declares it.
    #[test]
    fn descriptor_types_of_classes_and_kinds() {
        use DescriptorClass as C;
        use DescriptorKind::{Buffer, Image};
        use DescriptorType as T;
        for (class, kind, raw, expected) in [
            (C::ConstantBuffer, Buffer, false, Some(T::UniformBuffer)),
            (C::ConstantBuffer, Image, false, None),
            (C::Sampler, Image, false, Some(T::Sampler)),
            (C::Sampler, Buffer, false, None),
            (C::ShaderResource, Image, false, Some(T::SampledImage)),
            (
                C::ShaderResource,
                Buffer,
                false,
                Some(T::UniformTexelBuffer),
            ),
            (C::ShaderResource, Buffer, true, Some(T::StorageBuffer)),
            (C::UnorderedAccess, Image, false, Some(T::StorageImage)),
            (
                C::UnorderedAccess,
                Buffer,
                false,
                Some(T::StorageTexelBuffer),
            ),
            (C::UnorderedAccess, Buffer, true, Some(T::StorageBuffer)),
            (C::UavCounter, Buffer, false, Some(T::StorageBuffer)),
            (C::UavCounter, Image, false, None),
        ] {
            assert_eq!(
                DescriptorType::of(class, kind, raw),
                expected,
                "{class:?} {kind:?} raw {raw}"
            );
        }
        let srv = DescriptorType::possible(C::ShaderResource, None);
        assert_eq!(
            srv.to_string(),
            "sampled image or uniform texel buffer or storage buffer"
        );
        assert!(srv.intersects(DescriptorType::possible(C::UavCounter, None)));
        assert!(!srv.intersects(DescriptorType::possible(C::UnorderedAccess, Some(Image))));
    }

    /// One set and binding holds one descriptor type, whatever the array elements; distinct
    /// binding numbers never conflict.
    #[test]
    fn type_conflicts_are_per_binding_number() {
        let at = |set, binding, array_offset| Binding {
            set,
            binding,
            array_offset,
        };
        let storage = DescriptorTypes::from(DescriptorType::StorageBuffer);
        let texel = DescriptorTypes::from(DescriptorType::UniformTexelBuffer);
        assert_eq!(
            type_conflict(&[(at(0, 1, 0), storage), (at(0, 2, 0), texel)]),
            None
        );
        assert_eq!(
            type_conflict(&[(at(0, 1, 0), storage), (at(1, 1, 0), texel)]),
            None
        );
        assert_eq!(
            type_conflict(&[(at(0, 1, 0), storage), (at(0, 1, 0), storage)]),
            None
        );
        assert_eq!(
            type_conflict(&[
                (at(0, 1, 0), storage),
                (at(0, 2, 0), texel),
                (at(0, 1, 8), texel)
            ]),
            Some((0, 2))
        );
    }

    #[test]
    fn both_ways_of_finding_type_conflicts_agree() {
        // A small xorshift generator: lists of up to 40 bindings over few sets, bindings and
        // types, so that conflicts are frequent.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as u32
        };
        let types = [
            DescriptorType::UniformBuffer,
            DescriptorType::StorageBuffer,
            DescriptorType::UniformTexelBuffer,
            DescriptorType::SampledImage,
        ];
        for case in 0..2000 {
            let len = next(41) as usize;
            let list: Vec<(Binding, DescriptorTypes)> = (0..len)
                .map(|_| {
                    let binding = Binding {
                        set: next(2),
                        binding: next(4),
                        array_offset: next(3),
                    };
                    let mut set = DescriptorTypes::from(types[next(4) as usize]);
                    if next(3) == 0 {
                        set = set.with(types[next(4) as usize]);
                    }
                    (binding, set)
                })
                .collect();
            assert_eq!(
                type_conflict_pairwise(&list),
                type_conflict_grouped(&list),
                "case {case}: {list:?}"
            );
        }
    }

    fn map_error(text: &str) -> String {
        match BindingMap::from_json(text) {
            Ok(map) => panic!("accepted: {text}\n{map:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key_and_the_allowed_ones() {
        let e = map_error(r#"{"fallback_to_defaults": true, "ranges": []}"#);
        assert!(
            e.contains(r#"unknown key "fallback_to_defaults" (allowed: fallback_to_default, ranges) at the top level"#),
            "{e}"
        );
        let e = map_error(
            r#"{"ranges": [{"class": "srv", "first": 0, "set": 0, "binding": 0},
                           {"class": "srv", "first": 1, "set": 0, "binding": 1, "arrayOffset": 2}]}"#,
        );
        assert!(
            e.contains(r#"ranges[1]: unknown key "arrayOffset" (allowed: class, kind, space, first, last, set, binding, array_offset, push_constant, offset, size)"#),
            "{e}"
        );
        let e = map_error(
            r#"{"ranges": [{"class": "uav_counters", "first": 0, "set": 0, "binding": 0}]}"#,
        );
        assert!(
            e.contains(
                r#"ranges[0]: class "uav_counters" is not cbv, sampler, srv, uav or uav_counter"#
            ),
            "{e}"
        );
        let e = map_error(
            r#"{"ranges": [{"class": "srv", "kind": "texture", "first": 0, "set": 0, "binding": 0}]}"#,
        );
        assert!(
            e.contains(r#"ranges[0]: kind "texture" is not buffer or image"#),
            "{e}"
        );
        let e = map_error(
            r#"{"ranges": [{"class": "cbv", "kind": "image", "first": 0, "set": 0, "binding": 0}]}"#,
        );
        assert!(e.contains("ranges[0]: a cbv is never an image"), "{e}");
    }

    #[test]
    fn entries_of_different_descriptor_types_on_one_binding_are_errors() {
        // A storage buffer (raw UAV), a storage image and a sampler on set 1 binding 4, in
        // different array elements: no pipeline layout holds them.
        let e = map_error(
            r#"{"ranges": [
                {"class": "uav_counter", "first": 0, "last": 3, "set": 1, "binding": 4},
                {"class": "cbv", "first": 0, "set": 0, "binding": 4},
                {"class": "uav", "kind": "image", "first": 0, "last": 3, "set": 1, "binding": 4, "array_offset": 4}
            ]}"#,
        );
        assert!(
            e.contains(
                "ranges[0] (uav_counter u0..u3 in space 0 at set 1 binding 4 offset 0, a storage \
                 buffer) and ranges[2] (uav image u0..u3 in space 0 at set 1 binding 4 offset 4, \
                 a storage image) share set 1 binding 4"
            ),
            "{e}"
        );
        // A cbv and a sampler: different types whatever the declarations.
        let e = map_error(
            r#"{"ranges": [
                {"class": "sampler", "first": 0, "set": 0, "binding": 0},
                {"class": "cbv", "first": 0, "last": 0, "set": 0, "binding": 0, "array_offset": 9}
            ]}"#,
        );
        assert!(e.contains("ranges[0] (sampler s0..(unbounded)"), "{e}");
        assert!(
            e.contains(
                "ranges[1] (cbv cb0 in space 0 at set 0 binding 0 offset 9, a uniform buffer)"
            ),
            "{e}"
        );
    }

    #[test]
    fn entries_that_may_share_a_descriptor_type_are_allowed() {
        // Raw SRVs and UAV counters are storage buffers: one arrayed binding, in separate
        // elements or even the same ones. An SRV buffer entry may be a storage buffer, so the
        // map alone does not refuse it next to a UAV; the translation checks the ranges.
        BindingMap::from_json(
            r#"{"ranges": [
                {"class": "srv", "kind": "buffer", "first": 0, "last": 3, "set": 0, "binding": 2},
                {"class": "uav_counter", "first": 0, "last": 3, "set": 0, "binding": 2, "array_offset": 4},
                {"class": "uav", "first": 8, "last": 8, "set": 0, "binding": 2, "array_offset": 4},
                {"class": "srv", "kind": "image", "first": 0, "set": 0, "binding": 3},
                {"class": "sampler", "first": 0, "set": 0, "binding": 4}
            ]}"#,
        )
        .unwrap();
    }

    #[test]
    fn a_map_falls_back_to_every_default_tier() {
        let map = BindingMap::from_json(
            r#"{"fallback_to_default": true, "ranges": [
                {"class": "srv", "first": 0, "last": 9, "set": 9, "binding": 0}]}"#,
        )
        .unwrap();
        let ranges = [
            key(DescriptorClass::ShaderResource, 0, 2, Some(2)),
            key(DescriptorClass::ShaderResource, 3, 199, Some(199)),
            key(DescriptorClass::ShaderResource, 3, u32::MAX, None),
        ];
        let chosen: Vec<_> = map
            .map_shader(&ranges)
            .into_iter()
            .map(|b| b.map(|b| (b.set, b.binding, b.array_offset)))
            .collect();
        assert_eq!(
            chosen,
            [
                Some((9, 0, 2)),
                Some((3, 1285, 0)),
                Some((3, PER_SHADER_BINDING_BASE, 0))
            ]
        );
        let strict = BindingMap {
            fallback_to_default: false,
            ..map
        };
        assert_eq!(strict.map_shader(&ranges)[1], None);
    }

    #[test]
    fn bad_maps_are_errors() {
        for text in [
            "[]",
            r#"{"ranges": [{"class": "tex", "first": 0, "set": 0, "binding": 0}]}"#,
            r#"{"ranges": [{"class": "srv", "set": 0, "binding": 0}]}"#,
            r#"{"ranges": [{"class": "srv", "first": 4, "last": 2, "set": 0, "binding": 0}]}"#,
        ] {
            assert!(BindingMap::from_json(text).is_err(), "{text}");
        }
    }
}
