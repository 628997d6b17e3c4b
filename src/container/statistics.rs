//! The statistics chunk (STAT): instruction and register counters written by the compiler.

use super::reader::ChunkReader;
use crate::error::Result;

/// The STAT chunk. Known layouts are 28 (SM 4.0), 29 (SM 4.1) and 37 (SM 5) `u32`s; any
/// other whole number of `u32`s is kept too, with missing counters read as 0.
///
/// Field order follows vkd3d's reading of the chunk into `D3D11_SHADER_DESC`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Statistics {
    /// Every counter as stored, in order.
    pub raw: Vec<u32>,
    /// Instructions.
    pub instruction_count: u32,
    /// Temporary registers.
    pub temp_register_count: u32,
    /// Constant definitions.
    pub def_count: u32,
    /// Declarations.
    pub dcl_count: u32,
    /// Float arithmetic instructions.
    pub float_instruction_count: u32,
    /// Signed integer arithmetic instructions.
    pub int_instruction_count: u32,
    /// Unsigned integer arithmetic instructions.
    pub uint_instruction_count: u32,
    /// Static flow control instructions.
    pub static_flow_control_count: u32,
    /// Dynamic flow control instructions.
    pub dynamic_flow_control_count: u32,
    /// Macro instructions.
    pub macro_instruction_count: u32,
    /// Temporary arrays (indexable temps).
    pub temp_array_count: u32,
    /// Array instructions.
    pub array_instruction_count: u32,
    /// `cut` instructions.
    pub cut_instruction_count: u32,
    /// `emit` instructions.
    pub emit_instruction_count: u32,
    /// Sample instructions.
    pub texture_normal_instructions: u32,
    /// Load instructions.
    pub texture_load_instructions: u32,
    /// Comparison sample instructions.
    pub texture_comp_instructions: u32,
    /// Biased sample instructions.
    pub texture_bias_instructions: u32,
    /// Gradient sample instructions.
    pub texture_gradient_instructions: u32,
    /// `mov` instructions.
    pub mov_instruction_count: u32,
    /// `movc` instructions.
    pub movc_instruction_count: u32,
    /// Type conversion instructions.
    pub conversion_instruction_count: u32,
    /// Bitwise instructions.
    pub bitwise_instruction_count: u32,
    /// Geometry shader input primitive.
    pub gs_input_primitive: u32,
    /// Geometry shader output topology.
    pub gs_output_topology: u32,
    /// Geometry shader maximum output vertex count.
    pub gs_max_output_vertex_count: u32,
    /// Gather instructions (SM 4.1+).
    pub gather_instructions: u32,
    /// LOD instructions (SM 4.1+).
    pub lod_instructions: u32,
    /// Whether the shader runs at sample frequency (SM 4.1+).
    pub is_sample_frequency_shader: u32,
    /// Geometry shader instance count (SM 5).
    pub gs_instance_count: u32,
    /// Hull shader control points (SM 5).
    pub control_points: u32,
    /// Hull shader output primitive (SM 5).
    pub hs_output_primitive: u32,
    /// Hull shader partitioning (SM 5).
    pub hs_partitioning: u32,
    /// Tessellator domain (SM 5).
    pub tessellator_domain: u32,
    /// Barrier instructions (SM 5).
    pub barrier_instructions: u32,
    /// Interlocked (atomic) instructions (SM 5).
    pub interlocked_instructions: u32,
    /// Texture/UAV store instructions (SM 5).
    pub texture_store_instructions: u32,
}

impl Statistics {
    /// Parses the data of a STAT chunk.
    pub fn parse(data: &[u8]) -> Result<Self> {
        let r = ChunkReader::new(*b"STAT", data);
        if !data.len().is_multiple_of(4) {
            return Err(r.error(
                data.len() - data.len() % 4,
                format!(
                    "the chunk is 0x{:x} bytes, not a whole number of u32 counters",
                    data.len()
                ),
            ));
        }
        let raw: Vec<u32> = data
            .chunks_exact(4)
            .map(|b| <[u8; 4]>::try_from(b).map_or(0, u32::from_le_bytes))
            .collect();
        let mut it = raw.iter().copied().chain(std::iter::repeat(0));
        let mut next = || it.next().unwrap_or(0);
        Ok(Statistics {
            instruction_count: next(),
            temp_register_count: next(),
            def_count: next(),
            dcl_count: next(),
            float_instruction_count: next(),
            int_instruction_count: next(),
            uint_instruction_count: next(),
            static_flow_control_count: next(),
            dynamic_flow_control_count: next(),
            macro_instruction_count: next(),
            temp_array_count: next(),
            array_instruction_count: next(),
            cut_instruction_count: next(),
            emit_instruction_count: next(),
            texture_normal_instructions: next(),
            texture_load_instructions: next(),
            texture_comp_instructions: next(),
            texture_bias_instructions: next(),
            texture_gradient_instructions: next(),
            mov_instruction_count: next(),
            movc_instruction_count: next(),
            conversion_instruction_count: next(),
            bitwise_instruction_count: next(),
            gs_input_primitive: next(),
            gs_output_topology: next(),
            gs_max_output_vertex_count: next(),
            gather_instructions: next(),
            lod_instructions: next(),
            is_sample_frequency_shader: next(),
            gs_instance_count: next(),
            control_points: next(),
            hs_output_primitive: next(),
            hs_partitioning: next(),
            tessellator_domain: next(),
            barrier_instructions: next(),
            interlocked_instructions: next(),
            texture_store_instructions: next(),
            raw,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_counters() {
        let data: Vec<u8> = (1..=37u32).flat_map(|v| v.to_le_bytes()).collect();
        let s = Statistics::parse(&data).unwrap();
        assert_eq!(s.raw.len(), 37);
        assert_eq!(s.instruction_count, 1);
        assert_eq!(s.dcl_count, 4);
        assert_eq!(s.dynamic_flow_control_count, 9);
        assert_eq!(s.is_sample_frequency_shader, 29);
        assert_eq!(s.texture_store_instructions, 37);
        let short = Statistics::parse(&data[..28 * 4]).unwrap();
        assert_eq!(short.is_sample_frequency_shader, 0);
        assert_eq!(short.lod_instructions, 28);
        assert_eq!(short.gs_max_output_vertex_count, 26);
        assert!(Statistics::parse(&data[..7]).is_err());
    }
}
