//! The class linkage chunk (IFCE): class types, class instances and interface slots.
//!
//! Microsoft never documented this chunk. The layout here is the one inferred by
//! SlimShader and used by DXVK's dxbc-spirv; fields whose meaning is unknown are kept raw.
//!
//! * header, 7 `u32`: class instance count, class type count, interface slot record count,
//!   interface slot count, an unknown value, class type table offset, slot table offset;
//! * class type, 12 bytes: name offset `u32`, id `u16`, constant buffer stride `u16`,
//!   texture `u16`, sampler `u16`;
//! * class instance, 16 bytes, directly after the class types: name offset `u32`, type id
//!   `u16`, unknown `u16`, constant buffer `u16`, constant buffer offset `u16`, texture `u16`,
//!   sampler `u16`;
//! * interface slot record, 16 bytes: slot count `u32`, entry count `u32`, offset of the
//!   entries' type ids (`u16` each), offset of their table ids (`u32` each).

use super::reader::ChunkReader;
use crate::error::Result;

/// Size of a class type record.
const CLASS_TYPE_SIZE: usize = 12;
/// Size of a class instance record.
const CLASS_INSTANCE_SIZE: usize = 16;
/// Size of an interface slot record.
const SLOT_SIZE: usize = 16;

/// A class type available to the shader.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassType {
    /// Name.
    pub name: String,
    /// Type id.
    pub id: u16,
    /// Constant buffer stride.
    pub constant_buffer_stride: u16,
    /// Texture count.
    pub texture: u16,
    /// Sampler count.
    pub sampler: u16,
}

/// A class instance available to the shader.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassInstance {
    /// Name.
    pub name: String,
    /// Class type id.
    pub type_id: u16,
    /// A field of unknown meaning (observed as 1).
    pub unknown: u16,
    /// Constant buffer.
    pub constant_buffer: u16,
    /// Offset in the constant buffer.
    pub constant_buffer_offset: u16,
    /// Texture (0xffff: none).
    pub texture: u16,
    /// Sampler (0xffff: none).
    pub sampler: u16,
}

/// One (type id, function table id) pair of an interface slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InterfaceSlotEntry {
    /// Class type id.
    pub type_id: u16,
    /// Function table id.
    pub table_id: u32,
}

/// An interface slot record (covering `slot_count` consecutive slots).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InterfaceSlot {
    /// First slot this record covers (sum of the previous records' counts).
    pub first_slot: u32,
    /// Number of slots covered (an array of interfaces covers several).
    pub slot_count: u32,
    /// The type/table pairs that may fill these slots.
    pub entries: Vec<InterfaceSlotEntry>,
}

/// The parsed IFCE chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClassInterfaces {
    /// Total interface slots (header field).
    pub interface_slot_count: u32,
    /// The header's field of unknown meaning.
    pub unknown: u32,
    /// Class types.
    pub class_types: Vec<ClassType>,
    /// Class instances.
    pub class_instances: Vec<ClassInstance>,
    /// Interface slot records.
    pub slots: Vec<InterfaceSlot>,
}

impl ClassInterfaces {
    /// Parses the data of an IFCE chunk.
    pub fn parse(data: &[u8]) -> Result<Self> {
        let r = ChunkReader::new(*b"IFCE", data);
        let instance_count = r.u32(0, "class instance count")?;
        let type_count = r.u32(4, "class type count")?;
        let slot_record_count = r.u32(8, "interface slot record count")?;
        let interface_slot_count = r.u32(12, "interface slot count")?;
        let unknown = r.u32(16, "header field 4")?;
        let type_offset = r.u32(20, "class type offset")?;
        let slot_offset = r.u32(24, "interface slot offset")?;

        let types_at = r.table(type_offset, type_count, CLASS_TYPE_SIZE, "class type table")?;
        let mut class_types = Vec::with_capacity(type_count as usize);
        for i in 0..type_count as usize {
            let at = types_at + i * CLASS_TYPE_SIZE;
            let what = format!("class type {i}");
            let name = r.string(r.u32(at, &what)?, format_args!("{what} name"))?;
            class_types.push(ClassType {
                name,
                id: r.u16(at + 4, &what)?,
                constant_buffer_stride: r.u16(at + 6, &what)?,
                texture: r.u16(at + 8, &what)?,
                sampler: r.u16(at + 10, &what)?,
            });
        }

        // Class instances follow the class types directly.
        let instances_offset = (type_offset as usize)
            .checked_add((type_count as usize).saturating_mul(CLASS_TYPE_SIZE))
            .and_then(|o| u32::try_from(o).ok())
            .ok_or_else(|| r.error(20, "class instance table offset overflows"))?;
        let inst_at = r.table(
            instances_offset,
            instance_count,
            CLASS_INSTANCE_SIZE,
            "class instance table",
        )?;
        let mut class_instances = Vec::with_capacity(instance_count as usize);
        for i in 0..instance_count as usize {
            let at = inst_at + i * CLASS_INSTANCE_SIZE;
            let what = format!("class instance {i}");
            let name = r.string(r.u32(at, &what)?, format_args!("{what} name"))?;
            let half = |k: usize| r.u16(at + 4 + 2 * k, &what);
            class_instances.push(ClassInstance {
                name,
                type_id: half(0)?,
                unknown: half(1)?,
                constant_buffer: half(2)?,
                constant_buffer_offset: half(3)?,
                texture: half(4)?,
                sampler: half(5)?,
            });
        }

        let slots_at = r.table(
            slot_offset,
            slot_record_count,
            SLOT_SIZE,
            "interface slot table",
        )?;
        let mut slots = Vec::with_capacity(slot_record_count as usize);
        let mut first_slot = 0u32;
        for i in 0..slot_record_count as usize {
            let at = slots_at + i * SLOT_SIZE;
            let what = format!("interface slot record {i}");
            let slot_count = r.u32(at, &what)?;
            let entry_count = r.u32(at + 4, &what)?;
            let type_ids = r.u32(at + 8, &what)?;
            let table_ids = r.u32(at + 12, &what)?;
            let ty_at = r.table(type_ids, entry_count, 2, format_args!("{what} type ids"))?;
            let tb_at = r.table(table_ids, entry_count, 4, format_args!("{what} table ids"))?;
            r.charge((entry_count as usize).saturating_mul(8), at)?;
            let mut entries = Vec::with_capacity(entry_count as usize);
            for e in 0..entry_count as usize {
                entries.push(InterfaceSlotEntry {
                    type_id: r.u16(ty_at + 2 * e, &what)?,
                    table_id: r.u32(tb_at + 4 * e, &what)?,
                });
            }
            slots.push(InterfaceSlot {
                first_slot,
                slot_count,
                entries,
            });
            first_slot = first_slot.saturating_add(slot_count);
        }

        Ok(ClassInterfaces {
            interface_slot_count,
            unknown,
            class_types,
            class_instances,
            slots,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::Buf;
    use super::*;

    fn sample() -> Vec<u8> {
        let mut b = Buf::default();
        b.u32(1).u32(2).u32(1).u32(2).u32(0).u32(28).u32(0);
        // Two class types, then one instance.
        b.u32(0).u16(0).u16(16).u16(0).u16(0);
        b.u32(0).u16(1).u16(32).u16(1).u16(0);
        b.u32(0)
            .u16(1)
            .u16(1)
            .u16(0)
            .u16(16)
            .u16(0xffff)
            .u16(0xffff);
        let slots = b.pos();
        b.patch(24, slots);
        b.u32(2).u32(2).u32(0).u32(0);
        let ty = b.pos();
        b.patch(slots + 8, ty);
        b.u16(0).u16(1);
        let tb = b.pos();
        b.patch(slots + 12, tb);
        b.u32(0).u32(1);
        let n = b.str("cRed");
        b.patch(28, n);
        let n = b.str("cBlue");
        b.patch(40, n);
        let n = b.str("gBlue");
        b.patch(52, n);
        b.bytes
    }

    #[test]
    fn parses_sample() {
        let i = ClassInterfaces::parse(&sample()).unwrap();
        assert_eq!(i.class_types.len(), 2);
        assert_eq!(i.class_types[1].name, "cBlue");
        assert_eq!(i.class_types[1].constant_buffer_stride, 32);
        assert_eq!(i.class_instances[0].name, "gBlue");
        assert_eq!(i.class_instances[0].type_id, 1);
        assert_eq!(i.class_instances[0].constant_buffer_offset, 16);
        assert_eq!(i.slots[0].slot_count, 2);
        assert_eq!(
            i.slots[0].entries,
            vec![
                InterfaceSlotEntry {
                    type_id: 0,
                    table_id: 0
                },
                InterfaceSlotEntry {
                    type_id: 1,
                    table_id: 1
                }
            ]
        );
        assert_eq!(i.interface_slot_count, 2);
    }

    #[test]
    fn rejects_truncation_and_huge_counts() {
        let data = sample();
        for len in 0..data.len() - 1 {
            // Never panics; most truncations fail.
            let _ = ClassInterfaces::parse(&data[..len]);
        }
        assert!(ClassInterfaces::parse(&data[..20]).is_err());
        let mut d = data.clone();
        d[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(ClassInterfaces::parse(&d).is_err());
        let mut d = data;
        let slots = u32::from_le_bytes(d[24..28].try_into().unwrap()) as usize;
        d[slots + 4..slots + 8].copy_from_slice(&0x8000_0000u32.to_le_bytes());
        let e = ClassInterfaces::parse(&d).unwrap_err();
        assert!(e.message.contains("type ids"), "{e}");
    }
}
