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
//! Descriptor set = register space; binding = class base + the range's lower bound; array
//! offset 0. Class bases: constant buffers 0, samplers 16, shader resources 32, UAVs 160,
//! UAV counters 224 (= the UAV's binding + 64). The bases follow D3D11's limits (14 constant
//! buffers, 16 samplers, 128 SRVs, 64 UAVs); a range whose lower bound does not fit its
//! class's slots is not mapped by the default (pass a map for such shaders). A range of
//! several registers is one arrayed binding (descriptor count = the register count, or a
//! runtime array when unbounded), so `t2[0:7]` in space 1 is set 1, binding 32, 8 descriptors.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// Chooses the binding of each register range.
pub trait BindingMapper {
    /// The binding of a range, or `None` when the range is not mapped.
    fn map(&self, range: &RangeKey) -> Option<Binding>;
}

/// The binding of a range, or an error naming an unmapped range.
pub fn resolve(mapper: &dyn BindingMapper, range: &RangeKey) -> Result<Binding> {
    mapper.map(range).ok_or_else(|| {
        Error::new(
            Location::None,
            format!("no descriptor binding is mapped for {range}"),
        )
    })
}

/// The constant-buffer register (space 0) of the class-linkage instance data: a program that
/// declares interfaces (`dcl_interface`) reads, per interface slot, the function table the
/// bound class instance selects and its `this[]` data from this buffer (layout in
/// `src/spirv/linkage.rs` and the README). The binding pass asks the mapper for `cb15` of
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

/// The default layout (see the module documentation).
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultBindings;

impl BindingMapper for DefaultBindings {
    fn map(&self, range: &RangeKey) -> Option<Binding> {
        let (base, slots) = match range.class {
            DescriptorClass::ConstantBuffer => (CBV_BINDING_BASE, 16),
            DescriptorClass::Sampler => (SAMPLER_BINDING_BASE, 16),
            DescriptorClass::ShaderResource => (SRV_BINDING_BASE, 128),
            DescriptorClass::UnorderedAccess => (UAV_BINDING_BASE, 64),
            DescriptorClass::UavCounter => (UAV_COUNTER_BINDING_BASE, 64),
        };
        if range.lower >= slots {
            return None;
        }
        Some(Binding {
            set: range.space,
            binding: base + range.lower,
            array_offset: 0,
        })
    }
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
    /// The binding of register `first`.
    pub binding: Binding,
}

impl MapEntry {
    /// The binding of `range` when this entry covers all its registers.
    fn covers(&self, range: &RangeKey) -> Option<Binding> {
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BindingMap {
    /// The entries, tried in order.
    pub entries: Vec<MapEntry>,
    /// Bind ranges no entry covers with [`DefaultBindings`].
    pub fallback_to_default: bool,
}

impl BindingMapper for BindingMap {
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
}

impl BindingMap {
    /// Parses the JSON form.
    pub fn from_json(text: &str) -> Result<Self> {
        let bad = |m: String| Error::new(Location::None, format!("binding map: {m}"));
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("expected an object".into()))?;
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
        Ok(BindingMap {
            entries,
            fallback_to_default,
        })
    }
}

fn parse_entry(value: &serde_json::Value) -> std::result::Result<MapEntry, String> {
    let object = value.as_object().ok_or("expected an object")?;
    let number = |key: &str, default: Option<u32>| -> std::result::Result<u32, String> {
        match object.get(key) {
            None => default.ok_or_else(|| format!("{key} is missing")),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("{key} must be a 32-bit unsigned number")),
        }
    };
    let class = object
        .get("class")
        .and_then(|v| v.as_str())
        .and_then(DescriptorClass::from_name)
        .ok_or("class must be cbv, sampler, srv, uav or uav_counter")?;
    let kind = match object.get("kind").and_then(|v| v.as_str()) {
        None => None,
        Some("buffer") => Some(DescriptorKind::Buffer),
        Some("image") => Some(DescriptorKind::Image),
        Some(other) => return Err(format!("kind {other:?} is not buffer or image")),
    };
    let last = match object.get("last") {
        None | Some(serde_json::Value::Null) => None,
        Some(_) => Some(number("last", None)?),
    };
    let first = number("first", None)?;
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
        let far = key(DescriptorClass::ShaderResource, 0, 128, Some(128));
        assert_eq!(DefaultBindings.map(&far), None);
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
