//! Writing the resource definitions chunk (RDEF): the inverse of
//! [`ResourceDefinitions::parse`].
//!
//! Both layouts write the header (and for shader model 5 the RD11 sub-header), the binding
//! records and their names, the constant buffer records and their names, then for each
//! constant buffer its variable records followed by each variable's name, type records and
//! default value, and the creator string last. They differ in the details:
//!
//! * fxc packs and shares strings (see [`WriteStyle`]); for each variable it writes all the
//!   strings of the variable's type tree (type names, member names) before the type records,
//!   which come children first, each structure's member table just before the structure's
//!   record. Equal types within one variable share one record. A type without members
//!   stores member offset 0; an empty table stores offset 0 (the binding table: the end of
//!   the header).
//! * vkd3d-shader writes each type record as it reaches it: the type's name, then for each
//!   member the member's name and the member's type, then the member table, then the record.
//!   Equal types anywhere in the chunk share one record. A type without members stores
//!   member offset 1; an empty table stores the offset where it would have started.
//!
//! Types that were one record in a parsed chunk (same [`ShaderType::record_offset`]) are
//! written as one record again, so that a parsed chunk re-written in its own style comes out
//! byte-identical.

use super::layout::{to_u32, ByteWriter, WriteStyle};
use super::resources::{ConstantBuffer, ResourceDefinitions, ShaderType, Variable};

/// The RD11 magic as written for shader model 5.1.
const RD11_51_MAGIC: [u8; 4] = [0x13, 0x13, 0x44, 0x25];
/// Structure nesting limit: members that would sit this deep are left out (the parser
/// rejects deeper nesting, and parsed chunks never have it).
const MAX_TYPE_DEPTH: usize = 64;

/// Writes `defs` as RDEF chunk data in the layout of the compiler its creator string names
/// ([`WriteStyle::for_creator`]: vkd3d-shader's for `vkd3d-shader …`, fxc's otherwise).
pub fn write_rdef(defs: &ResourceDefinitions) -> Vec<u8> {
    write_rdef_styled(defs, WriteStyle::for_creator(&defs.creator))
}

/// Writes `defs` as RDEF chunk data in the given layout.
///
/// The record formats follow the target version: shader model 5 and later get the RD11
/// sub-header (its magic, header size and interface slot count from `defs.rd11` when
/// present, else `RD11`, or `13 13 44 25` for 5.1 and later, 60 and 0), 40-byte variable
/// and 36-byte type records, and 40-byte binding records with space and ID when
/// `defs.has_spaces`; older targets get 32-byte bindings, 24-byte variables and 16-byte
/// types, which cannot hold type names, texture/sampler slots, spaces or IDs. A default
/// value is written as stored; it reads back only if its length equals the variable's size.
pub fn write_rdef_styled(defs: &ResourceDefinitions, style: WriteStyle) -> Vec<u8> {
    let sm5 = defs.major >= 5;
    let spaces = sm5 && defs.has_spaces;
    let mut writer = RdefWriter {
        w: ByteWriter::new(style),
        style,
        sm5,
        types: Vec::new(),
        local_types: Vec::new(),
    };
    let w = &mut writer.w;
    w.u32(to_u32(defs.constant_buffers.len()));
    w.u32(0); // constant buffer offset, patched below
    w.u32(to_u32(defs.bindings.len()));
    w.u32(0); // binding offset, patched below
    w.u8(defs.minor);
    w.u8(defs.major);
    w.u16(defs.program_type.raw());
    w.u32(defs.flags);
    w.u32(0); // creator offset, patched below
    if sm5 {
        let stored = defs.rd11.as_ref();
        let magic = stored
            .map(|h| h.magic)
            .unwrap_or(if spaces || defs.minor >= 1 {
                RD11_51_MAGIC
            } else {
                *b"RD11"
            });
        w.raw(&magic);
        w.u32(stored.map_or(60, |h| h.header_size));
        w.u32(24);
        w.u32(if spaces { 40 } else { 32 });
        w.u32(40);
        w.u32(36);
        w.u32(12);
        w.u32(stored.map_or(0, |h| h.interface_slot_count));
    }

    // Bindings and their names.
    let at = w.pos();
    w.patch(12, at);
    let mut name_slots = Vec::with_capacity(defs.bindings.len());
    for b in &defs.bindings {
        name_slots.push(w.pos());
        w.u32(0);
        w.u32(b.input_type.raw());
        w.u32(b.return_type.raw());
        w.u32(b.dimension.raw());
        w.u32(b.sample_count);
        w.u32(b.bind_point);
        w.u32(b.bind_count);
        w.u32(b.flags);
        if spaces {
            w.u32(b.space);
            w.u32(b.id);
        }
    }
    for (slot, b) in name_slots.iter().zip(&defs.bindings) {
        let at = w.string(&b.name);
        w.patch(*slot, at);
    }
    w.align();

    // Constant buffers and their names.
    if style == WriteStyle::Vkd3d || !defs.constant_buffers.is_empty() {
        let at = w.pos();
        w.patch(4, at);
    }
    let mut cb_slots = Vec::with_capacity(defs.constant_buffers.len());
    for cb in &defs.constant_buffers {
        cb_slots.push(w.pos());
        w.u32(0);
        w.u32(to_u32(cb.variables.len()));
        w.u32(0); // variable offset, patched below
        w.u32(cb.size);
        w.u32(cb.flags);
        w.u32(cb.kind.raw());
    }
    for (slot, cb) in cb_slots.iter().zip(&defs.constant_buffers) {
        let at = w.string(&cb.name);
        w.patch(*slot, at);
    }
    w.align();
    for (slot, cb) in cb_slots.iter().zip(&defs.constant_buffers) {
        writer.constant_buffer(*slot, cb);
    }

    let w = &mut writer.w;
    let at = w.string(&defs.creator);
    w.patch(24, at);
    w.align();
    writer.w.bytes
}

/// The writer's state while laying out one chunk.
struct RdefWriter {
    /// The bytes.
    w: ByteWriter,
    /// The layout.
    style: WriteStyle,
    /// Whether records have the shader model 5 sizes.
    sm5: bool,
    /// Type records written anywhere in the chunk, with their offsets.
    types: Vec<(ShaderType, u32)>,
    /// Type records written for the current variable (fxc style).
    local_types: Vec<(ShaderType, u32)>,
}

impl RdefWriter {
    /// Writes the variables of `cb`, whose record is at `slot`.
    fn constant_buffer(&mut self, slot: u32, cb: &ConstantBuffer) {
        if self.style == WriteStyle::Vkd3d || !cb.variables.is_empty() {
            let at = self.w.pos();
            self.w.patch(slot + 8, at);
        }
        let mut var_slots = Vec::with_capacity(cb.variables.len());
        for v in &cb.variables {
            var_slots.push(self.w.pos());
            self.w.u32(0);
            self.w.u32(v.start_offset);
            self.w.u32(v.size);
            self.w.u32(v.flags);
            self.w.u32(0); // type offset, patched below
            self.w.u32(0); // default value offset, patched below
            if self.sm5 {
                self.w.u32(v.texture_start);
                self.w.u32(v.texture_size);
                self.w.u32(v.sampler_start);
                self.w.u32(v.sampler_size);
            }
        }
        for (slot, v) in var_slots.into_iter().zip(&cb.variables) {
            self.variable(slot, v);
        }
    }

    /// Writes the name, type and default value of the variable whose record is at `slot`.
    fn variable(&mut self, slot: u32, v: &Variable) {
        let at = self.w.string(&v.name);
        self.w.patch(slot, at);
        let ty = match self.style {
            WriteStyle::Fxc => {
                self.local_types.clear();
                self.fxc_strings(&v.ty, 0);
                self.w.align();
                self.fxc_type(&v.ty, 0)
            }
            WriteStyle::Vkd3d => self.vkd3d_type(&v.ty, 0),
        };
        self.w.patch(slot + 16, ty);
        if let Some(value) = &v.default_value {
            self.w.align();
            let at = self.w.pos();
            self.w.patch(slot + 20, at);
            self.w.raw(value);
            self.w.align();
        }
    }

    /// The offset of an already written record for `ty`, if there is one to share.
    fn cached(&self, ty: &ShaderType) -> Option<u32> {
        let local = self.local_types.iter().find(|(t, _)| t == ty);
        // Across variables, fxc shares only what the parsed chunk shared (same record).
        let global = self
            .types
            .iter()
            .find(|(t, _)| t == ty && (self.style == WriteStyle::Vkd3d || t.record_offset != 0));
        local.or(global).map(|&(_, at)| at)
    }

    /// Remembers that `ty` was written at `at`.
    fn remember(&mut self, ty: &ShaderType, at: u32) {
        if self.style == WriteStyle::Fxc {
            self.local_types.push((ty.clone(), at));
        }
        self.types.push((ty.clone(), at));
    }

    /// The members of `ty` that are written (none past the nesting limit; at most the
    /// 65535 a record can count).
    fn members(ty: &ShaderType, depth: usize) -> &[super::resources::TypeMember] {
        if depth + 1 >= MAX_TYPE_DEPTH {
            return &[];
        }
        let n = ty.members.len().min(usize::from(u16::MAX));
        ty.members.get(..n).unwrap_or_default()
    }

    /// fxc style, first pass: writes every string of the type tree (type name, member
    /// names, then the members' types' strings).
    fn fxc_strings(&mut self, ty: &ShaderType, depth: usize) {
        if self.cached(ty).is_some() {
            return;
        }
        if self.sm5 {
            if let Some(name) = &ty.name {
                self.w.string(name);
            }
        }
        let members = Self::members(ty, depth);
        for m in members {
            self.w.string(&m.name);
        }
        for m in members {
            self.fxc_strings(&m.ty, depth + 1);
        }
    }

    /// fxc style, second pass: writes the type records children first and returns the
    /// offset of `ty`'s record.
    fn fxc_type(&mut self, ty: &ShaderType, depth: usize) -> u32 {
        if let Some(at) = self.cached(ty) {
            return at;
        }
        let members = Self::members(ty, depth);
        let mut entries = Vec::with_capacity(members.len());
        for m in members {
            let name = self.w.string(&m.name);
            let at = self.fxc_type(&m.ty, depth + 1);
            entries.push((name, at, m.offset));
        }
        let table = if entries.is_empty() {
            0
        } else {
            self.member_table(&entries)
        };
        let name = match (&ty.name, self.sm5) {
            (Some(name), true) => self.w.string(name),
            _ => 0,
        };
        self.w.align();
        self.record(ty, entries.len(), table, name)
    }

    /// vkd3d style: writes the type's name, each member's name and type, the member table
    /// and the record, and returns the record's offset.
    fn vkd3d_type(&mut self, ty: &ShaderType, depth: usize) -> u32 {
        if let Some(at) = self.cached(ty) {
            return at;
        }
        let name = match (&ty.name, self.sm5) {
            (Some(name), true) => self.w.string(name),
            _ => 0,
        };
        let members = Self::members(ty, depth);
        let mut entries = Vec::with_capacity(members.len());
        for m in members {
            let name = self.w.string(&m.name);
            let at = self.vkd3d_type(&m.ty, depth + 1);
            entries.push((name, at, m.offset));
        }
        let table = if entries.is_empty() {
            1
        } else {
            self.member_table(&entries)
        };
        self.record(ty, entries.len(), table, name)
    }

    /// Writes a member table of `(name offset, type offset, member offset)` entries.
    fn member_table(&mut self, entries: &[(u32, u32, u32)]) -> u32 {
        self.w.align();
        let at = self.w.pos();
        for &(name, ty, offset) in entries {
            self.w.u32(name);
            self.w.u32(ty);
            self.w.u32(offset);
        }
        at
    }

    /// Writes the type record of `ty` and remembers it.
    fn record(&mut self, ty: &ShaderType, members: usize, table: u32, name: u32) -> u32 {
        self.w.align();
        let at = self.w.pos();
        self.w.u16(ty.class.raw());
        self.w.u16(ty.base_type.raw());
        self.w.u16(ty.rows);
        self.w.u16(ty.columns);
        self.w.u16(ty.elements);
        self.w.u16(u16::try_from(members).unwrap_or(u16::MAX));
        self.w.u32(table);
        if self.sm5 {
            for _ in 0..4 {
                self.w.u32(0);
            }
            self.w.u32(name);
        }
        self.remember(ty, at);
        at
    }
}

#[cfg(test)]
mod tests {
    use super::super::resources::*;
    use super::super::test_util::sample_rdef;
    use super::*;

    /// Clears the record offsets, which depend on the layout.
    fn normalize(defs: &mut ResourceDefinitions) {
        fn ty(t: &mut ShaderType) {
            t.record_offset = 0;
            t.members.iter_mut().for_each(|m| ty(&mut m.ty));
        }
        for cb in &mut defs.constant_buffers {
            cb.variables.iter_mut().for_each(|v| ty(&mut v.ty));
        }
    }

    #[test]
    fn sample_chunks_round_trip_in_both_styles() {
        for sm in [40, 50, 51] {
            let parsed = ResourceDefinitions::parse(&sample_rdef(sm)).unwrap();
            for style in [WriteStyle::Fxc, WriteStyle::Vkd3d] {
                let data = write_rdef_styled(&parsed, style);
                assert_eq!(data.len() % 4, 0);
                let mut back = ResourceDefinitions::parse(&data)
                    .unwrap_or_else(|e| panic!("sm {sm} {style:?}: {e}"));
                let mut expect = parsed.clone();
                normalize(&mut back);
                normalize(&mut expect);
                assert_eq!(back, expect, "sm {sm} {style:?}");
                // Writing the re-parsed chunk again is stable.
                let again = ResourceDefinitions::parse(&data).unwrap();
                assert_eq!(write_rdef_styled(&again, style), data);
            }
        }
    }

    fn scalar() -> ShaderType {
        ShaderType {
            class: VariableClass::Scalar,
            base_type: VariableType::Float,
            rows: 1,
            columns: 1,
            name: Some("float".to_string()),
            ..ShaderType::default()
        }
    }

    fn defs(creator: &str) -> ResourceDefinitions {
        let pair = ShaderType {
            class: VariableClass::Struct,
            rows: 1,
            columns: 2,
            name: Some("pair".to_string()),
            members: vec![
                TypeMember {
                    name: "a".to_string(),
                    offset: 0,
                    ty: scalar(),
                },
                TypeMember {
                    name: "b".to_string(),
                    offset: 4,
                    ty: scalar(),
                },
            ],
            ..ShaderType::default()
        };
        let var = |name: &str, at: u32, ty: ShaderType| Variable {
            name: name.to_string(),
            start_offset: at,
            size: 4,
            flags: Variable::FLAG_USED,
            ty,
            default_value: None,
            texture_start: u32::MAX,
            texture_size: 0,
            sampler_start: u32::MAX,
            sampler_size: 0,
        };
        ResourceDefinitions {
            major: 5,
            minor: 0,
            program_type: ProgramType::Pixel,
            flags: 0x100,
            creator: creator.to_string(),
            rd11: None,
            has_spaces: false,
            constant_buffers: vec![ConstantBuffer {
                name: "cb".to_string(),
                variables: vec![
                    var("a", 0, scalar()),
                    Variable {
                        size: 8,
                        default_value: Some(vec![1, 0, 0, 0, 2, 0, 0, 0]),
                        ..var("p", 16, pair)
                    },
                ],
                size: 32,
                flags: 0,
                kind: ConstantBufferType::CBuffer,
            }],
            bindings: vec![ResourceBinding {
                name: "cb".to_string(),
                bind_count: 1,
                ..ResourceBinding::default()
            }],
        }
    }

    #[test]
    fn fxc_layout_packs_strings_and_shares_types_within_a_variable() {
        let d = defs("Microsoft (R) HLSL Shader Compiler 10.1");
        let data = write_rdef(&d);
        let back = ResourceDefinitions::parse(&data).unwrap();
        let vars = &back.constant_buffers[0].variables;
        let p = &vars[1].ty;
        // Members of one variable share the float record; the other variable has its own.
        assert_eq!(p.members[0].ty.record_offset, p.members[1].ty.record_offset);
        assert_ne!(vars[0].ty.record_offset, p.members[0].ty.record_offset);
        assert_eq!(
            vars[1].default_value.as_deref(),
            Some(&[1, 0, 0, 0, 2, 0, 0, 0][..])
        );
        assert_eq!(back.rd11.unwrap().magic, *b"RD11");
        // The binding and buffer share the string "cb", written once after the bindings.
        let strings = &data[60 + 32..60 + 32 + 4];
        assert_eq!(strings, b"cb\0\xab");
        // A scalar type stores member offset 0.
        let t = vars[0].ty.record_offset as usize;
        assert_eq!(&data[t + 12..t + 16], &[0, 0, 0, 0]);
    }

    #[test]
    fn vkd3d_layout_shares_types_everywhere() {
        let d = defs("vkd3d-shader 1.17");
        let data = write_rdef(&d);
        let back = ResourceDefinitions::parse(&data).unwrap();
        let vars = &back.constant_buffers[0].variables;
        assert_eq!(
            vars[0].ty.record_offset,
            vars[1].ty.members[0].ty.record_offset
        );
        let t = vars[0].ty.record_offset as usize;
        assert_eq!(&data[t + 12..t + 16], &[1, 0, 0, 0]);
        assert_eq!(&data[60 + 32..60 + 36], b"cb\0\xab");
        assert_eq!(&data[data.len() - 4..], b"7\0\xab\xab");
    }

    #[test]
    fn sm51_defaults_and_old_targets() {
        let mut d = defs("x");
        d.minor = 1;
        d.has_spaces = true;
        d.bindings[0].space = 3;
        d.bindings[0].id = 7;
        let back = ResourceDefinitions::parse(&write_rdef(&d)).unwrap();
        assert_eq!(back.rd11.unwrap().magic, RD11_51_MAGIC);
        assert_eq!(back.rd11.unwrap().binding_size, 40);
        assert_eq!((back.bindings[0].space, back.bindings[0].id), (3, 7));

        // Shader model 4 records cannot hold names, spaces or slots.
        d.major = 4;
        let back = ResourceDefinitions::parse(&write_rdef(&d)).unwrap();
        assert!(back.rd11.is_none() && !back.has_spaces);
        assert_eq!(back.bindings[0].id, back.bindings[0].bind_point);
        assert_eq!(back.constant_buffers[0].variables[0].ty.name, None);
        assert_eq!(back.constant_buffers[0].variables[1].ty.members.len(), 2);
    }

    #[test]
    fn empty_definitions() {
        let d = ResourceDefinitions {
            major: 4,
            creator: "c".to_string(),
            ..ResourceDefinitions::default()
        };
        let data = write_rdef(&d);
        assert_eq!(data.len(), 28 + 4);
        assert_eq!(&data[4..8], &[0; 4]); // no constant buffers: offset 0
        assert_eq!(&data[12..16], &[28, 0, 0, 0]);
        let v = write_rdef_styled(&d, WriteStyle::Vkd3d);
        assert_eq!(&v[4..8], &[28, 0, 0, 0]);
        assert_eq!(
            ResourceDefinitions::parse(&v).unwrap(),
            ResourceDefinitions::parse(&data).unwrap()
        );
    }

    #[test]
    fn deep_types_are_cut_off_not_overflowed() {
        let mut ty = scalar();
        for _ in 0..200 {
            ty = ShaderType {
                class: VariableClass::Struct,
                members: vec![TypeMember {
                    name: "m".to_string(),
                    offset: 0,
                    ty,
                }],
                ..ShaderType::default()
            };
        }
        let mut d = defs("x");
        d.constant_buffers[0].variables[0].ty = ty;
        for style in [WriteStyle::Fxc, WriteStyle::Vkd3d] {
            let data = write_rdef_styled(&d, style);
            assert!(ResourceDefinitions::parse(&data).is_ok());
        }
    }
}
