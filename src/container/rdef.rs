//! Parsing of the resource definitions chunk (RDEF).

use super::reader::{ChunkReader, Label};
use super::resources::{
    ConstantBuffer, ConstantBufferType, ProgramType, Rd11Header, ResourceBinding,
    ResourceDefinitions, ResourceDimension, ResourceReturnType, ShaderInputType, ShaderType,
    TypeMember, Variable, VariableClass, VariableType,
};
use crate::error::Result;

/// Deepest structure nesting accepted (deeper means a cycle or a hostile chunk).
const MAX_TYPE_DEPTH: usize = 64;
/// Size of the RDEF header before the optional RD11 sub-header.
const HEADER_SIZE: usize = 28;
/// Size of a constant buffer record.
const CBUFFER_SIZE: usize = 24;
/// Size of a structure member record.
const MEMBER_SIZE: usize = 12;
/// Budget units charged for each type node built.
const TYPE_NODE_COST: usize = 16;
/// The RD11 magic as written for shader model 5.1 (the u32 0x25441313).
const RD11_51_MAGIC: [u8; 4] = [0x13, 0x13, 0x44, 0x25];

/// Record sizes in effect for one RDEF chunk.
struct Sizes {
    /// Bytes per binding record (32 or 40).
    binding: usize,
    /// Bytes per variable record (24 or 40).
    variable: usize,
    /// Bytes per type record (16 or 36).
    ty: usize,
}

impl ResourceDefinitions {
    /// Parses the data of an RDEF chunk.
    pub fn parse(data: &[u8]) -> Result<Self> {
        let r = ChunkReader::new(*b"RDEF", data);
        let cb_count = r.u32(0, "constant buffer count")?;
        let cb_offset = r.u32(4, "constant buffer offset")?;
        let binding_count = r.u32(8, "binding count")?;
        let binding_offset = r.u32(12, "binding offset")?;
        let minor = r.u8(16, "target minor version")?;
        let major = r.u8(17, "target major version")?;
        let program_type = ProgramType::from_raw(r.u16(18, "program type")?);
        let flags = r.u32(20, "compile flags")?;
        let creator_offset = r.u32(24, "creator offset")?;
        let creator = r.string(creator_offset, "creator")?;

        let (rd11, sizes) = if major >= 5 {
            let rd11 = parse_rd11(&r)?;
            let sizes = Sizes {
                binding: rd11.binding_size as usize,
                variable: rd11.variable_size as usize,
                ty: rd11.type_size as usize,
            };
            (Some(rd11), sizes)
        } else {
            let sizes = Sizes {
                binding: 32,
                variable: 24,
                ty: 16,
            };
            (None, sizes)
        };

        let parser = Parser { r: &r, sizes };
        let mut constant_buffers = Vec::new();
        let start = r.table(cb_offset, cb_count, CBUFFER_SIZE, "constant buffer table")?;
        constant_buffers.reserve_exact(cb_count as usize);
        for i in 0..cb_count as usize {
            constant_buffers.push(parser.constant_buffer(i, start + i * CBUFFER_SIZE)?);
        }

        let mut bindings = Vec::new();
        let size = parser.sizes.binding;
        let start = r.table(binding_offset, binding_count, size, "binding table")?;
        bindings.reserve_exact(binding_count as usize);
        for i in 0..binding_count as usize {
            bindings.push(parser.binding(i, start + i * size)?);
        }

        Ok(ResourceDefinitions {
            major,
            minor,
            program_type,
            flags,
            creator,
            rd11,
            has_spaces: size == 40,
            constant_buffers,
            bindings,
        })
    }
}

/// Reads and checks the RD11 sub-header.
fn parse_rd11(r: &ChunkReader<'_>) -> Result<Rd11Header> {
    let at = HEADER_SIZE;
    let magic_bytes = r.bytes(at, 4, "rd11 magic")?;
    let mut magic = [0u8; 4];
    for (d, s) in magic.iter_mut().zip(magic_bytes) {
        *d = *s;
    }
    if &magic != b"RD11" && magic != RD11_51_MAGIC {
        return Err(r.error(
            at,
            format!(
                "shader model 5 resource definitions need an rd11 sub-header, found magic {:02x}{:02x}{:02x}{:02x}",
                magic[0], magic[1], magic[2], magic[3]
            ),
        ));
    }
    let field = |i: usize, what: &str| r.u32(at + 4 * i, what);
    let h = Rd11Header {
        magic,
        header_size: field(1, "rd11 header size")?,
        constant_buffer_size: field(2, "rd11 constant buffer record size")?,
        binding_size: field(3, "rd11 binding record size")?,
        variable_size: field(4, "rd11 variable record size")?,
        type_size: field(5, "rd11 type record size")?,
        member_size: field(6, "rd11 member record size")?,
        interface_slot_count: field(7, "rd11 interface slot count")?,
    };
    let checks: [(usize, &str, u32, &[u32]); 5] = [
        (2, "constant buffer", h.constant_buffer_size, &[24]),
        (3, "binding", h.binding_size, &[32, 40]),
        (4, "variable", h.variable_size, &[40]),
        (5, "type", h.type_size, &[36]),
        (6, "member", h.member_size, &[12]),
    ];
    for (i, what, value, allowed) in checks {
        if !allowed.contains(&value) {
            return Err(r.error(
                at + 4 * i,
                format!("unsupported rd11 {what} record size {value} (expected {allowed:?})"),
            ));
        }
    }
    Ok(h)
}

/// Record parsers sharing the chunk reader and record sizes.
struct Parser<'r, 'a> {
    /// The chunk.
    r: &'r ChunkReader<'a>,
    /// Record sizes.
    sizes: Sizes,
}

impl Parser<'_, '_> {
    /// Parses constant buffer record `i` at `at` and its variables.
    fn constant_buffer(&self, i: usize, at: usize) -> Result<ConstantBuffer> {
        let r = self.r;
        let field =
            |k: usize, what: &str| r.u32(at + 4 * k, format_args!("constant buffer {i} {what}"));
        let name = r.string(
            field(0, "name offset")?,
            format_args!("constant buffer {i} name"),
        )?;
        let var_count = field(1, "variable count")?;
        let var_offset = field(2, "variable offset")?;
        let size = field(3, "size")?;
        let flags = field(4, "flags")?;
        let kind = ConstantBufferType::from_raw(field(5, "type")?);
        let vsize = self.sizes.variable;
        let start = r.table(
            var_offset,
            var_count,
            vsize,
            format_args!("constant buffer {i} variable table"),
        )?;
        let mut variables = Vec::with_capacity(var_count as usize);
        for v in 0..var_count as usize {
            variables.push(self.variable(i, v, start + v * vsize)?);
        }
        Ok(ConstantBuffer {
            name,
            variables,
            size,
            flags,
            kind,
        })
    }

    /// Parses variable `v` of constant buffer `i` at `at`.
    fn variable(&self, i: usize, v: usize, at: usize) -> Result<Variable> {
        let r = self.r;
        let label = Label(|f| write!(f, "constant buffer {i} variable {v}"));
        let field = |k: usize, what: &str| r.u32(at + 4 * k, format_args!("{label} {what}"));
        let name = r.string(field(0, "name offset")?, format_args!("{label} name"))?;
        let start_offset = field(1, "start offset")?;
        let size = field(2, "size")?;
        let flags = field(3, "flags")?;
        let type_offset = field(4, "type offset")?;
        let default_offset = field(5, "default value offset")?;
        let (texture_start, texture_size, sampler_start, sampler_size) =
            if self.sizes.variable >= 40 {
                (
                    field(6, "texture start")?,
                    field(7, "texture size")?,
                    field(8, "sampler start")?,
                    field(9, "sampler size")?,
                )
            } else {
                (u32::MAX, 0, u32::MAX, 0)
            };
        let default_value = if default_offset != 0 {
            let bytes = r.bytes(
                default_offset as usize,
                size as usize,
                format_args!("{label} default value"),
            )?;
            r.charge(bytes.len(), default_offset as usize)?;
            Some(bytes.to_vec())
        } else {
            None
        };
        let mut stack = Vec::new();
        let ty = self.shader_type(type_offset, &mut stack)?;
        Ok(Variable {
            name,
            start_offset,
            size,
            flags,
            ty,
            default_value,
            texture_start,
            texture_size,
            sampler_start,
            sampler_size,
        })
    }

    /// Parses the type record at `offset`; `stack` holds the records being expanded.
    fn shader_type(&self, offset: u32, stack: &mut Vec<u32>) -> Result<ShaderType> {
        let r = self.r;
        let at = offset as usize;
        if stack.contains(&offset) {
            return Err(r.error(at, format!("type at 0x{offset:x} contains itself")));
        }
        if stack.len() >= MAX_TYPE_DEPTH {
            return Err(r.error(
                at,
                format!("types nest deeper than {MAX_TYPE_DEPTH} levels at 0x{offset:x}"),
            ));
        }
        r.charge(TYPE_NODE_COST, at)?;
        let what = Label(|f| write!(f, "type at 0x{offset:x}"));
        r.bytes(at, self.sizes.ty, &what)?;
        let half = |k: usize| r.u16(at + 2 * k, &what);
        let class = VariableClass::from_raw(half(0)?);
        let base_type = VariableType::from_raw(half(1)?);
        let rows = half(2)?;
        let columns = half(3)?;
        let elements = half(4)?;
        let member_count = half(5)?;
        let member_offset = r.u32(at + 12, &what)?;
        let name = if self.sizes.ty >= 36 {
            match r.u32(at + 32, &what)? {
                0 => None,
                name_offset => Some(r.string(name_offset, format_args!("{what} name"))?),
            }
        } else {
            None
        };
        let start = r.table(
            member_offset,
            u32::from(member_count),
            MEMBER_SIZE,
            format_args!("{what} member table"),
        )?;
        r.charge(usize::from(member_count).saturating_mul(MEMBER_SIZE), at)?;
        let mut members = Vec::with_capacity(usize::from(member_count));
        stack.push(offset);
        for m in 0..usize::from(member_count) {
            let mat = start + m * MEMBER_SIZE;
            let label = Label(|f| write!(f, "{what} member {m}"));
            let name_offset = r.u32(mat, &label)?;
            let type_offset = r.u32(mat + 4, &label)?;
            let member_offset = r.u32(mat + 8, &label)?;
            let name = r.string(name_offset, format_args!("{label} name"))?;
            let ty = self.shader_type(type_offset, stack)?;
            members.push(TypeMember {
                name,
                offset: member_offset,
                ty,
            });
        }
        stack.pop();
        Ok(ShaderType {
            record_offset: offset,
            class,
            base_type,
            rows,
            columns,
            elements,
            members,
            name,
        })
    }

    /// Parses binding record `i` at `at`.
    fn binding(&self, i: usize, at: usize) -> Result<ResourceBinding> {
        let r = self.r;
        let field = |k: usize, what: &str| r.u32(at + 4 * k, format_args!("binding {i} {what}"));
        let name = r.string(field(0, "name offset")?, format_args!("binding {i} name"))?;
        let bind_point = field(5, "bind point")?;
        let (space, id) = if self.sizes.binding >= 40 {
            (field(8, "space")?, field(9, "id")?)
        } else {
            (0, bind_point)
        };
        Ok(ResourceBinding {
            name,
            input_type: ShaderInputType::from_raw(field(1, "input type")?),
            return_type: ResourceReturnType::from_raw(field(2, "return type")?),
            dimension: ResourceDimension::from_raw(field(3, "dimension")?),
            sample_count: field(4, "sample count")?,
            bind_point,
            bind_count: field(6, "bind count")?,
            flags: field(7, "flags")?,
            space,
            id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{sample_rdef, Buf};
    use super::*;
    use crate::error::Location;

    #[test]
    fn parses_sm4_sm50_sm51() {
        for sm in [40, 50, 51] {
            let data = sample_rdef(sm);
            let d = ResourceDefinitions::parse(&data).unwrap();
            assert_eq!((d.major as u32, d.minor as u32), (sm / 10, sm % 10));
            assert_eq!(d.program_type, ProgramType::Pixel);
            assert_eq!(d.creator, "test compiler");
            assert_eq!(d.rd11.is_some(), sm >= 50);
            assert_eq!(d.has_spaces, sm >= 51);
            assert_eq!(d.bindings.len(), 2);
            let t = &d.bindings[1];
            assert_eq!(t.name, "tex2");
            assert_eq!(t.input_type, ShaderInputType::Texture);
            assert_eq!(t.return_type, ResourceReturnType::Float);
            assert_eq!(t.dimension, ResourceDimension::Texture2D);
            assert_eq!((t.bind_point, t.bind_count, t.flags), (0, 8, 0xc));
            assert_eq!(t.space, if sm >= 51 { 1 } else { 0 });
            assert_eq!(t.id, if sm >= 51 { 1 } else { 0 });
            let cb = &d.constant_buffers[0];
            assert_eq!(cb.name, "cb0");
            assert_eq!(cb.kind, ConstantBufferType::CBuffer);
            assert_eq!(cb.variables.len(), 2);
            let color = &cb.variables[0];
            assert_eq!(color.name, "color");
            assert_eq!(color.ty.class, VariableClass::Vector);
            assert_eq!((color.ty.rows, color.ty.columns), (1, 4));
            let s = &cb.variables[1];
            assert_eq!(s.ty.class, VariableClass::Struct);
            assert_eq!(s.ty.members.len(), 2);
            assert_eq!(s.ty.members[1].name, "b");
            assert_eq!(s.ty.members[1].offset, 4);
            assert_eq!(s.ty.members[1].ty.base_type, VariableType::Int);
            let expect_name = if sm >= 50 {
                Some("S".to_string())
            } else {
                None
            };
            assert_eq!(s.ty.name, expect_name);
        }
    }

    #[test]
    fn rejects_type_cycle() {
        let mut data = sample_rdef(50);
        let d = ResourceDefinitions::parse(&data).unwrap();
        let s = d.constant_buffers[0].variables[1].ty.record_offset;
        let member1 = d.constant_buffers[0].variables[1].ty.members[0]
            .ty
            .record_offset;
        // Point the struct's first member at the struct itself.
        let members_at =
            u32::from_le_bytes(data[s as usize + 12..s as usize + 16].try_into().unwrap());
        let slot = members_at as usize + 4;
        assert_eq!(
            u32::from_le_bytes(data[slot..slot + 4].try_into().unwrap()),
            member1
        );
        data[slot..slot + 4].copy_from_slice(&s.to_le_bytes());
        let e = ResourceDefinitions::parse(&data).unwrap_err();
        assert_eq!(
            e.location,
            Location::Chunk {
                fourcc: *b"RDEF",
                byte: s as usize
            }
        );
        assert!(e.message.contains("contains itself"), "{e}");
    }

    #[test]
    fn rejects_bad_offsets_and_counts() {
        let data = sample_rdef(40);
        // Huge binding count.
        let mut d = data.clone();
        d[8..12].copy_from_slice(&0x4000_0000u32.to_le_bytes());
        let e = ResourceDefinitions::parse(&d).unwrap_err();
        assert!(
            e.message.starts_with("binding table: 1073741824 records"),
            "{e}"
        );
        // Creator offset out of range.
        let mut d = data.clone();
        d[24..28].copy_from_slice(&0xffffu32.to_le_bytes());
        let e = ResourceDefinitions::parse(&d).unwrap_err();
        assert!(
            e.message
                .starts_with("creator offset 0xffff is past the end"),
            "{e}"
        );
        // Truncated header.
        assert!(ResourceDefinitions::parse(&data[..20]).is_err());
        // Bad RD11 magic.
        let mut d = sample_rdef(50);
        d[28] = b'X';
        let e = ResourceDefinitions::parse(&d).unwrap_err();
        assert_eq!(
            e.location,
            Location::Chunk {
                fourcc: *b"RDEF",
                byte: 28
            }
        );
        // Bad record size.
        let mut d = sample_rdef(50);
        d[28 + 16..28 + 20].copy_from_slice(&44u32.to_le_bytes());
        let e = ResourceDefinitions::parse(&d).unwrap_err();
        assert!(e.message.contains("variable record size 44"), "{e}");
    }

    #[test]
    fn shared_types_are_bounded() {
        // A struct type whose 4096 members all point at one struct with 4096 members of
        // float: 16M nodes if expanded, must fail on the budget instead.
        let mut b = Buf::default();
        b.u32(1).u32(0).u32(0).u32(0);
        b.u8(0).u8(4).u16(0xffff).u32(0).u32(0);
        let creator = b.str("x");
        b.patch(24, creator);
        let float_t = b.pos();
        b.u16(0).u16(3).u16(1).u16(1).u16(0).u16(0).u32(0);
        let n = 4096u32;
        let inner = b.pos();
        b.u16(5).u16(0).u16(1).u16(1).u16(0).u16(n as u16).u32(0);
        let inner_members = b.pos();
        b.patch(inner + 12, inner_members);
        for _ in 0..n {
            b.u32(creator).u32(float_t).u32(0);
        }
        let outer = b.pos();
        b.u16(5).u16(0).u16(1).u16(1).u16(0).u16(n as u16).u32(0);
        let outer_members = b.pos();
        b.patch(outer + 12, outer_members);
        for _ in 0..n {
            b.u32(creator).u32(inner).u32(0);
        }
        let cb = b.pos();
        b.patch(4, cb);
        b.u32(creator).u32(1).u32(0).u32(16).u32(0).u32(0);
        let var = b.pos();
        b.patch(cb + 8, var);
        b.u32(creator).u32(0).u32(16).u32(0).u32(outer).u32(0);
        let e = ResourceDefinitions::parse(&b.bytes).unwrap_err();
        assert!(e.message.contains("expand to more data"), "{e}");
    }
}
