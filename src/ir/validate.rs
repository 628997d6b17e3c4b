//! The IR validator: checks a program's structure between stages.
//!
//! [`validate`] checks what every later stage relies on: operand counts and handles,
//! destination forms, index counts per register file, resource operands in SM5.1 form that
//! name declared ranges, and temp registers within their declarations.
//! [`validate_control_flow`] checks block structure (if/else/endif, loop, switch, phases),
//! which only translation needs: a disassembler must still print a program whose blocks are
//! malformed.

use super::*;
use crate::error::{Error, Result};
use crate::fast_hash::HashSet;
use crate::isa::Layout;
use smallvec::SmallVec;

/// Checks a program's structure; the error names the first offending instruction.
pub fn validate(program: &Program) -> Result<()> {
    let declared = DeclaredRegisters::collect(program);
    for (index, instruction) in program.instructions.iter().enumerate() {
        let fail = |message: String| Error::instruction(index as u32, instruction.dword, message);
        check_instruction(program, instruction, &declared).map_err(fail)?;
    }
    Ok(())
}

/// Checks the rules of the program's stage that translation relies on (a disassembler
/// prints such programs all the same): stage declarations belong to the stage and the ones
/// made once are not repeated, input and output declarations declare input and output
/// registers, pixel-shader instructions appear only in pixel shaders and thread-group `sync`
/// only in compute shaders. What only restates a Direct3D runtime limit (a thread group past
/// the model's D3D11 maximum, an input or output register past D3D11's 32, more than its 8
/// clip and cull distances) is not refused but added to `warnings`.
pub fn validate_stage_rules(program: &Program, warnings: &mut Vec<crate::Warning>) -> Result<()> {
    // The declarations made so far that a program makes once (a handful: inline).
    let mut once: SmallVec<[&'static str; 8]> = SmallVec::new();
    let mut topology = None;
    let mut io = DeclaredIo::default();
    let mut distances = Distances::default();
    for (index, instruction) in program.instructions.iter().enumerate() {
        let fail = |message: String| Error::instruction(index as u32, instruction.dword, message);
        if matches!(
            instruction.opcode,
            Opcode::HsDecls
                | Opcode::HsControlPointPhase
                | Opcode::HsForkPhase
                | Opcode::HsJoinPhase
        ) {
            io.0.clear();
            distances.0.clear();
        }
        let sync = instruction.sync;
        if instruction.opcode == Opcode::Sync
            && (sync.threads_in_group || sync.group_shared_memory || sync.uav_group)
            && program.model.stage != Stage::Compute
        {
            return Err(fail(
                "sync with _t, _g or _ugroup (thread-group sync, shared memory or a group-scope \
                 UAV fence) outside a compute shader"
                    .into(),
            ));
        }
        if program.model.stage != Stage::Pixel && pixel_only(instruction.opcode) {
            return Err(fail(format!(
                "{} outside a pixel shader",
                instruction.opcode.name()
            )));
        }
        for operand in program.operands_of(instruction) {
            check_register_stage(program.model.stage, operand.kind).map_err(fail)?;
        }
        if let Some(declaration) = &instruction.declaration {
            check_stage_declaration(program.model.stage, declaration, &mut once, &mut topology)
                .map_err(fail)?;
            if let Declaration::Stream(_) = declaration {
                // A geometry shader declares the outputs of each stream after its dcl_stream.
                io.0.retain(|&(kind, ..)| kind != RegisterKind::Output as u8);
                distances
                    .0
                    .retain(|&(kind, _)| kind != RegisterKind::Output);
            }
            if let Declaration::ThreadGroup(size) = declaration {
                check_thread_group(*size).map_err(fail)?;
                if let Some(limit) = past_d3d_thread_group_limit(program.model, *size) {
                    warnings.push(crate::Warning::instruction(
                        index as u32,
                        instruction.dword,
                        limit,
                    ));
                }
            }
            if let Declaration::Signature {
                operand,
                system_value,
                ..
            } = declaration
            {
                let operand = program.operand(*operand);
                let distance = matches!(
                    system_value,
                    Some(SystemValue::ClipDistance | SystemValue::CullDistance)
                );
                let past = [
                    distance.then(|| distances.declare(operand)).flatten(),
                    past_d3d_register_limit(operand),
                ];
                for limit in past.into_iter().flatten() {
                    warnings.push(crate::Warning::instruction(
                        index as u32,
                        instruction.dword,
                        limit,
                    ));
                }
                io.declare(operand).map_err(fail)?;
                check_signature_kind(instruction.opcode, operand.kind).map_err(fail)?;
                check_register_stage(program.model.stage, operand.kind).map_err(fail)?;
                if program.model.stage == Stage::Hull
                    && operand.kind == RegisterKind::Input
                    && operand.index_count != 2
                {
                    return Err(fail(
                        "a hull shader's v registers are per control point: v[count][register]"
                            .into(),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Direct3D 11's clip and cull distances of one register file together
/// (`D3D11_CLIP_OR_CULL_DISTANCE_COUNT`).
const D3D11_DISTANCES: u32 = 8;

/// The clip and cull distance components declared in a scope, per register file.
#[derive(Default)]
struct Distances(Vec<(RegisterKind, u32)>);

impl Distances {
    /// Counts a clip or cull distance declaration; the warning's text when its file passes
    /// Direct3D 11's limit with it (the `ClipDistance`/`CullDistance` arrays take them all, and
    /// a device's limits say how many it runs).
    fn declare(&mut self, operand: &Operand) -> Option<String> {
        let at = match self.0.iter().position(|(k, _)| *k == operand.kind) {
            Some(at) => at,
            None => {
                self.0.push((operand.kind, 0));
                self.0.len() - 1
            }
        };
        let count = &mut self.0[at].1;
        let before = *count;
        *count += operand.mask().count_ones();
        (before <= D3D11_DISTANCES && *count > D3D11_DISTANCES).then(|| {
            format!(
                "more than {D3D11_DISTANCES} clip and cull distances in the {} file, past \
                 Direct3D 11's limit (D3D11_CLIP_OR_CULL_DISTANCE_COUNT); translated, for a \
                 Vulkan device whose maxClipDistances, maxCullDistances and \
                 maxCombinedClipAndCullDistances allow it",
                operand.kind.name()
            )
        })
    }
}

/// Direct3D 11's input, output, control-point and patch-constant register files have 32
/// registers in every stage (`D3D11_VS_INPUT_REGISTER_COUNT` and its kin). A declaration past
/// them is the Direct3D runtime's limit, not Vulkan's (a register is a location, and a
/// device's `maxVertexInputAttributes`, `maxVertexOutputComponents`,
/// `maxFragmentInputComponents`, … say how many it takes): a warning, the text returned.
fn past_d3d_register_limit(operand: &Operand) -> Option<String> {
    let io = matches!(
        operand.kind,
        RegisterKind::Input
            | RegisterKind::Output
            | RegisterKind::InputControlPoint
            | RegisterKind::OutputControlPoint
            | RegisterKind::InputPatchConstant
    );
    let register = operand.indices().last()?.as_imm32()?;
    (io && register >= 32).then(|| {
        format!(
            "{}{register}: past the 32 registers of Direct3D 11's {} file \
             (D3D11_*_REGISTER_COUNT); translated, for a Vulkan device whose location limits \
             allow it",
            operand.kind.name(),
            operand.kind.name()
        )
    })
}

/// What a thread group must be for the module to be valid: every dimension at least 1 (a
/// `LocalSize` of 0 is invalid) and fewer than 2^32 threads in all (a product that wraps in
/// 32 bits is 0 to a consumer that multiplies them).
fn check_thread_group(size: [u32; 3]) -> std::result::Result<(), String> {
    let threads = size
        .iter()
        .try_fold(1u64, |product, &n| product.checked_mul(u64::from(n)));
    if size.contains(&0) || threads.is_none_or(|n| n > u64::from(u32::MAX)) {
        return Err(format!(
            "dcl_thread_group {}, {}, {}: a thread group has at least 1 thread in each \
             dimension and fewer than 2^32 in all",
            size[0], size[1], size[2]
        ));
    }
    Ok(())
}

/// D3D11's limits on a compute shader's thread group (`D3D11_CS_THREAD_GROUP_MAX_*` and
/// `D3D11_CS_4_X_THREAD_GROUP_MAX_*`): cs_5_0 up to 1024 × 1024 × 64 and 1024 threads in all;
/// cs_4_x up to 768 × 768 × 1 and 768 threads. The Direct3D runtime's, not Vulkan's (fxc
/// itself compiles `[numthreads(16, 8, 4)]` for cs_4_0, and a Vulkan device's
/// `maxComputeWorkGroupSize` says what it runs): past them is a warning, the text returned.
fn past_d3d_thread_group_limit(model: ShaderModel, size: [u32; 3]) -> Option<String> {
    let (max, threads) = if model.is_sm5() {
        ([1024, 1024, 64], 1024)
    } else {
        ([768, 768, 1], 768)
    };
    let fits = size.iter().zip(max).all(|(&n, m)| n <= m);
    // Each dimension is at most 1024 here, so the product fits in 64 bits.
    if fits && size.iter().map(|&n| u64::from(n)).product::<u64>() <= threads {
        return None;
    }
    Some(format!(
        "dcl_thread_group {}, {}, {}: past Direct3D 11's cs_{}_x limit of {} × {} × {} threads \
         and {threads} in all (D3D11_CS{}_THREAD_GROUP_MAX_*); translated, for a Vulkan device \
         whose maxComputeWorkGroupSize and maxComputeWorkGroupInvocations allow it",
        size[0],
        size[1],
        size[2],
        model.major,
        max[0],
        max[1],
        max[2],
        if model.is_sm5() { "" } else { "_4_X" },
    ))
}

/// The input and output register components declared so far in one scope (the program, one
/// hull-shader phase, or for outputs one geometry-shader stream): `(register file code,
/// register, mask)`.
#[derive(Default)]
struct DeclaredIo(Vec<(u8, u32, u8)>);

impl DeclaredIo {
    /// Records a signature declaration; a component of a register declared twice in one scope
    /// is an error (the declarations give it two meanings, or two interpolations).
    fn declare(&mut self, operand: &Operand) -> std::result::Result<(), String> {
        let per_register = matches!(
            operand.kind,
            RegisterKind::Input
                | RegisterKind::Output
                | RegisterKind::InputPatchConstant
                | RegisterKind::InputControlPoint
                | RegisterKind::OutputControlPoint
        );
        let count = usize::from(operand.index_count);
        let register = match count
            .checked_sub(1)
            .map(|last| operand.indices[last].as_imm32())
        {
            Some(Some(register)) if per_register => register,
            _ => return Ok(()),
        };
        let (kind, mask) = (operand.kind as u8, operand.mask());
        let overlap = self
            .0
            .iter()
            .filter(|&&(k, r, _)| k == kind && r == register)
            .fold(0, |o, &(_, _, m)| o | (m & mask));
        if overlap != 0 {
            let component = ["x", "y", "z", "w"][overlap.trailing_zeros() as usize & 3];
            return Err(format!(
                "{}{register}.{component} is declared twice (one declaration per component \
                 and scope)",
                operand.kind.name(),
            ));
        }
        self.0.push((kind, register, mask));
        Ok(())
    }
}

/// Checks that an input register file exists in the stage (thread ids only in compute
/// shaders, coverage only in pixel shaders, and so on): Vulkan allows the built-ins behind
/// them only in the matching execution models.
fn check_register_stage(stage: Stage, kind: RegisterKind) -> std::result::Result<(), String> {
    use RegisterKind::*;
    use Stage::*;
    let stages: &[Stage] = match kind {
        InputThreadId
        | InputThreadGroupId
        | InputThreadIdInGroup
        | InputThreadIdInGroupFlattened => &[Compute],
        InputCoverageMask | InnerCoverage => &[Pixel],
        InputGsInstanceId => &[Geometry],
        InputDomainPoint => &[Domain],
        OutputControlPointId | InputForkInstanceId | InputJoinInstanceId | OutputControlPoint => {
            &[Hull]
        }
        InputControlPoint | InputPatchConstant => &[Hull, Domain],
        InputPrimitiveId => &[Hull, Domain, Geometry, Pixel],
        // A compute shader has no stage inputs or outputs, only its thread ids; and only it
        // has thread-group shared memory.
        Input | Output => &[Vertex, Hull, Domain, Geometry, Pixel],
        OutputDepth
        | OutputDepthGreaterEqual
        | OutputDepthLessEqual
        | OutputCoverageMask
        | OutputStencilRef => &[Pixel],
        ThreadGroupSharedMemory => &[Compute],
        _ => return Ok(()),
    };
    if stages.contains(&stage) {
        Ok(())
    } else {
        Err(format!(
            "{} does not exist in a {} shader",
            kind.name(),
            stage.prefix()
        ))
    }
}

/// Instructions only a pixel shader has: attribute evaluation, `discard` and the
/// pixel-shader input declarations (Vulkan allows the first ones in fragment shaders only).
/// Derivatives and implicit levels of detail are refused by the back end, which names them
/// as unsupported (later shader models allow them in compute shaders).
fn pixel_only(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::EvalSnapped
            | Opcode::EvalSampleIndex
            | Opcode::EvalCentroid
            | Opcode::Discard
            | Opcode::DclInputPs
            | Opcode::DclInputPsSgv
            | Opcode::DclInputPsSiv
    )
}

/// Register files that `dcl_output*` declares.
const OUTPUT_FILES: [RegisterKind; 6] = [
    RegisterKind::Output,
    RegisterKind::OutputDepth,
    RegisterKind::OutputDepthGreaterEqual,
    RegisterKind::OutputDepthLessEqual,
    RegisterKind::OutputCoverageMask,
    RegisterKind::OutputStencilRef,
];

/// Register files that `dcl_input*` declares (`vocp` is read by hull-shader patch phases).
const INPUT_FILES: [RegisterKind; 18] = [
    RegisterKind::Input,
    RegisterKind::InputPrimitiveId,
    RegisterKind::OutputControlPointId,
    RegisterKind::InputForkInstanceId,
    RegisterKind::InputJoinInstanceId,
    RegisterKind::InputControlPoint,
    RegisterKind::OutputControlPoint,
    RegisterKind::InputPatchConstant,
    RegisterKind::InputDomainPoint,
    RegisterKind::InputThreadId,
    RegisterKind::InputThreadGroupId,
    RegisterKind::InputThreadIdInGroup,
    RegisterKind::InputCoverageMask,
    RegisterKind::InputThreadIdInGroupFlattened,
    RegisterKind::InputGsInstanceId,
    RegisterKind::InnerCoverage,
    RegisterKind::CycleCounter,
    RegisterKind::Rasterizer,
];

/// Checks that an input declaration declares an input register and an output declaration
/// an output register.
fn check_signature_kind(opcode: Opcode, kind: RegisterKind) -> std::result::Result<(), String> {
    let output = matches!(
        opcode,
        Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv
    );
    let allowed: &[RegisterKind] = if output { &OUTPUT_FILES } else { &INPUT_FILES };
    if allowed.contains(&kind) {
        Ok(())
    } else {
        Err(format!(
            "{} declares a {} register",
            opcode.name(),
            kind.name()
        ))
    }
}

/// Checks that a stage declaration belongs to the program's stage and that a declaration a
/// program makes once is not repeated (a second, different value would leave the
/// translation two contradicting execution modes).
fn check_stage_declaration(
    stage: Stage,
    declaration: &Declaration,
    once: &mut SmallVec<[&'static str; 8]>,
    topology: &mut Option<PrimitiveTopology>,
) -> std::result::Result<(), String> {
    use Stage::*;
    let (name, stages, single): (&'static str, &[Stage], bool) = match declaration {
        Declaration::GsOutputTopology(t) => {
            if topology.is_some_and(|previous| previous != *t) {
                return Err("a second, different dcl_outputtopology".into());
            }
            *topology = Some(*t);
            ("dcl_outputtopology", &[Geometry], false)
        }
        Declaration::GsInputPrimitive(_) => ("dcl_inputprimitive", &[Geometry], true),
        Declaration::MaxOutputVertexCount(_) => ("dcl_maxout", &[Geometry], true),
        Declaration::GsInstanceCount(_) => ("dcl_gsinstances", &[Geometry], true),
        Declaration::Stream(_) => ("dcl_stream", &[Geometry], false),
        Declaration::InputControlPointCount(_) => {
            ("dcl_input_control_point_count", &[Hull, Domain], true)
        }
        Declaration::OutputControlPointCount(_) => {
            ("dcl_output_control_point_count", &[Hull], true)
        }
        Declaration::TessDomain(_) => ("dcl_tessellator_domain", &[Hull, Domain], true),
        Declaration::TessPartitioning(_) => ("dcl_tessellator_partitioning", &[Hull], true),
        Declaration::TessOutputPrimitive(_) => ("dcl_tessellator_output_primitive", &[Hull], true),
        Declaration::HsMaxTessFactor(_) => ("dcl_hs_max_tessfactor", &[Hull], true),
        Declaration::HsForkPhaseInstanceCount(_) | Declaration::HsJoinPhaseInstanceCount(_) => {
            ("a phase instance count", &[Hull], false)
        }
        Declaration::ThreadGroup(_) => ("dcl_thread_group", &[Compute], true),
        Declaration::UavTyped {
            dimension: ResourceDimension::TextureCube | ResourceDimension::TextureCubeArray,
            ..
        } => {
            return Err("a typed UAV cannot be a cube texture".into());
        }
        _ => return Ok(()),
    };
    if !stages.contains(&stage) {
        return Err(format!("{name} in a {stage:?} shader"));
    }
    if single {
        if once.contains(&name) {
            return Err(format!("{name} declared twice"));
        }
        once.push(name);
    }
    Ok(())
}

/// What the declarations of a program declare. The sets are sorted vectors (searched by
/// bisection): programs declare few registers, and building them costs no hashing.
struct DeclaredRegisters {
    temps: u32,
    indexable: Vec<u32>,
    /// `(register file code, range id)`.
    ranges: Vec<(u8, u32)>,
}

impl DeclaredRegisters {
    fn collect(program: &Program) -> Self {
        let mut declared = DeclaredRegisters {
            temps: 0,
            indexable: Vec::new(),
            ranges: Vec::new(),
        };
        for instruction in &program.instructions {
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            match declaration {
                Declaration::Temps(n) => declared.temps = declared.temps.max(*n),
                Declaration::IndexableTemp { register, .. } => {
                    declared.indexable.push(*register);
                }
                Declaration::Resource { range, .. }
                | Declaration::ResourceRaw { range, .. }
                | Declaration::ResourceStructured { range, .. } => {
                    declared
                        .ranges
                        .push((RegisterKind::Resource as u8, range.id));
                }
                Declaration::UavTyped { range, .. }
                | Declaration::UavRaw { range, .. }
                | Declaration::UavStructured { range, .. } => {
                    declared
                        .ranges
                        .push((RegisterKind::UnorderedAccessView as u8, range.id));
                }
                Declaration::ConstantBuffer { range, .. } => {
                    declared
                        .ranges
                        .push((RegisterKind::ConstantBuffer as u8, range.id));
                }
                Declaration::Sampler { range, .. } => {
                    declared
                        .ranges
                        .push((RegisterKind::Sampler as u8, range.id));
                }
                _ => {}
            }
        }
        declared.indexable.sort_unstable();
        declared.ranges.sort_unstable();
        declared
    }

    /// Whether indexable temp `x#register` is declared.
    fn has_indexable(&self, register: u32) -> bool {
        self.indexable.binary_search(&register).is_ok()
    }

    /// Whether range `id` of register file `kind` is declared.
    fn has_range(&self, kind: RegisterKind, id: u32) -> bool {
        self.ranges.binary_search(&(kind as u8, id)).is_ok()
    }
}

fn check_instruction(
    program: &Program,
    instruction: &Instruction,
    declared: &DeclaredRegisters,
) -> std::result::Result<(), String> {
    let info = instruction.opcode.info();
    let operands = program.operands_of(instruction);
    if operands.len() != instruction.operands.len as usize {
        return Err("the instruction's operands lie outside the operand arena".into());
    }
    let trailing = instruction.trailing;
    if trailing.len > 0 {
        if info.layout == Layout::CustomData {
            return Err("a custom-data block has no dwords past its data".into());
        }
        let words = program.data_slice(trailing);
        if words.len() != trailing.len as usize {
            return Err("the instruction's trailing dwords lie outside the data arena".into());
        }
        if words.last() == Some(&0) {
            return Err(
                "the instruction's trailing dwords end in 0 (zero padding is the length's)".into(),
            );
        }
    }
    if info.layout != Layout::Declaration && info.layout != Layout::CustomData {
        let expected = info.dsts.len() + info.srcs.len();
        if operands.len() != expected || instruction.dst_count as usize != info.dsts.len() {
            return Err(format!(
                "{} takes {} operand(s), found {}",
                info.name,
                expected,
                operands.len()
            ));
        }
        for (i, operand) in operands.iter().enumerate() {
            let is_dst = i < instruction.dst_count as usize;
            check_operand(program, operand, is_dst, declared, 0)
                .map_err(|e| format!("operand {}: {e}", i + 1))?;
        }
    } else if let Some(declaration) = &instruction.declaration {
        check_declaration(program, declaration)?;
    } else {
        return Err(format!("{} carries no declaration", info.name));
    }
    Ok(())
}

/// The SM5.0 constant-buffer, texture or sampler register chosen at run time
/// (`cb[r1.y + 0][r1.x + 0]`, `t[r0.x + 0]`, held as range [`super::DYNAMIC_RANGE`]): SM5.0
/// only (SM4 has no such operand, SM5.1 indexes declared ranges instead), and its register
/// index has a relative part.
fn check_dynamic_register(
    model: ShaderModel,
    operand: &Operand,
) -> std::result::Result<(), String> {
    let name = operand.kind.name();
    if !model.is_sm5() {
        return Err(format!(
            "a {name} register chosen at run time needs shader model 5.0, not {model}"
        ));
    }
    if operand.indices[1].relative().is_none()
        || matches!(operand.indices[1], Index::Imm64PlusRelative(..))
    {
        return Err(format!(
            "the run-time {name} form (range 0xffffffff) needs a 32-bit relative register index"
        ));
    }
    Ok(())
}

/// Before SM5.1 a resource operand's register is its range id (the decoder writes `t3` as
/// `t3[3]`); anything else would be an index the bytecode cannot hold.
fn check_pre_sm51_register(
    model: ShaderModel,
    operand: &Operand,
    id: u32,
) -> std::result::Result<(), String> {
    if model.has_resource_ranges() || operand.indices[1].as_imm32() == Some(id) {
        return Ok(());
    }
    Err(format!(
        "{}{id}: before SM5.1 a resource operand's register index must be its range id",
        operand.kind.name()
    ))
}

/// How an instruction reads an operand, in words (for errors).
fn value_type_name(value_type: ValueType) -> &'static str {
    match value_type {
        ValueType::F32 => "a 32-bit float",
        ValueType::I32 => "a 32-bit integer",
        ValueType::U32 => "a 32-bit unsigned integer",
        ValueType::F64 => "a double",
        ValueType::Bits => "32-bit bits",
        ValueType::None => "no value",
    }
}

fn check_declaration(
    program: &Program,
    declaration: &Declaration,
) -> std::result::Result<(), String> {
    let data_ok = |range: &DataRange| {
        (range.start as usize)
            .checked_add(range.len as usize)
            .is_some_and(|end| end <= program.data.len())
    };
    match declaration {
        Declaration::CustomData { data, .. }
        | Declaration::FunctionTable { bodies: data, .. }
        | Declaration::Interface { tables: data, .. }
            if !data_ok(data) =>
        {
            Err("the declaration's data lies outside the data arena".into())
        }
        Declaration::ConstantBuffer { range, .. }
        | Declaration::Resource { range, .. }
        | Declaration::ResourceRaw { range, .. }
        | Declaration::ResourceStructured { range, .. }
        | Declaration::Sampler { range, .. }
            if !program.model.has_resource_ranges() && range.id == super::DYNAMIC_RANGE =>
        {
            Err(format!(
                "register {} is not a D3D11 register (constant buffers have slots 0–{}, \
                 textures 0–127, samplers 0–15); its number stands for the register chosen \
                 at run time",
                range.id,
                super::D3D11_CB_SLOTS - 1
            ))
        }
        Declaration::Resource { range, .. }
        | Declaration::ResourceRaw { range, .. }
        | Declaration::ResourceStructured { range, .. }
        | Declaration::UavTyped { range, .. }
        | Declaration::UavRaw { range, .. }
        | Declaration::UavStructured { range, .. }
        | Declaration::ConstantBuffer { range, .. }
        | Declaration::Sampler { range, .. }
            if range.upper.is_some_and(|upper| upper < range.lower) =>
        {
            Err(format!(
                "range {} has upper bound {:?} below its lower bound {}",
                range.id, range.upper, range.lower
            ))
        }
        _ => Ok(()),
    }
}

/// The number of indices a register file takes in an instruction operand (SM5.1 form), or
/// `None` where it varies by stage or use.
fn expected_indices(kind: RegisterKind) -> Option<u8> {
    use RegisterKind::*;
    Some(match kind {
        Temp
        | Output
        | Label
        | Stream
        | FunctionBody
        | FunctionTable
        | ThreadGroupSharedMemory
        | InputPatchConstant => 1,
        IndexableTemp | Resource | Sampler | UnorderedAccessView => 2,
        ConstantBuffer => 3,
        ImmediateConstantBuffer => 1,
        Immediate32
        | Immediate64
        | Null
        | Rasterizer
        | InputPrimitiveId
        | OutputDepth
        | OutputDepthGreaterEqual
        | OutputDepthLessEqual
        | OutputCoverageMask
        | OutputStencilRef
        | InputThreadId
        | InputThreadGroupId
        | InputThreadIdInGroup
        | InputThreadIdInGroupFlattened
        | InputCoverageMask
        | InnerCoverage
        | InputGsInstanceId
        | OutputControlPointId
        | InputForkInstanceId
        | InputJoinInstanceId
        | InputDomainPoint
        | CycleCounter => 0,
        InputControlPoint | OutputControlPoint => 2,
        Input | Interface | ThisPointer | FunctionInput | FunctionOutput => return None,
    })
}

fn check_operand(
    program: &Program,
    operand: &Operand,
    is_dst: bool,
    declared: &DeclaredRegisters,
    depth: u32,
) -> std::result::Result<(), String> {
    let name = operand.kind.name();
    if let Some(expected) = expected_indices(operand.kind) {
        // `vocp`/`vicp` may also appear with one index in some phases; `o` with two in
        // hull-shader control-point phases.
        let flexible = matches!(
            operand.kind,
            RegisterKind::InputControlPoint
                | RegisterKind::OutputControlPoint
                | RegisterKind::Output
        );
        if operand.index_count != expected && !flexible {
            return Err(format!(
                "{name} takes {expected} index(es), found {}",
                operand.index_count
            ));
        }
    }
    if is_dst {
        if operand.modifier != Modifier::None {
            return Err(format!("destination {name} has a source modifier"));
        }
        if operand.components == ComponentCount::Four
            && !matches!(operand.selection, Selection::Mask(_))
        {
            return Err(format!(
                "destination {name} uses a swizzle instead of a mask"
            ));
        }
        if matches!(
            operand.kind,
            RegisterKind::Temp | RegisterKind::IndexableTemp | RegisterKind::Output
        ) && operand.mask() == 0
        {
            return Err(format!("destination {name} writes no component (mask 0)"));
        }
        if matches!(
            operand.kind,
            RegisterKind::Immediate32
                | RegisterKind::Immediate64
                | RegisterKind::ConstantBuffer
                | RegisterKind::ImmediateConstantBuffer
                | RegisterKind::Resource
                | RegisterKind::Sampler
                | RegisterKind::Label
                | RegisterKind::FunctionBody
                | RegisterKind::FunctionTable
                | RegisterKind::Interface
                | RegisterKind::ThisPointer
        ) || INPUT_FILES.contains(&operand.kind)
        {
            return Err(format!("{name} cannot be written"));
        }
    }
    // The format's 64-bit immediate (operand type 5, `d(…)`) holds doubles as (low, high)
    // halves: only a source that an instruction reads as a double can take one (fxc writes
    // it nowhere else); a 32-bit read has no component of it to take.
    if operand.kind == RegisterKind::Immediate64 && operand.value_type != ValueType::F64 {
        return Err(format!(
            "a d(…) immediate where the instruction reads {}; only a double-precision source \
             takes a 64-bit immediate",
            value_type_name(operand.value_type)
        ));
    }
    match operand.kind {
        RegisterKind::Temp => {
            if let Some(register) = operand.indices[0].as_imm32() {
                if register >= declared.temps {
                    return Err(format!(
                        "r{register} is used but dcl_temps declares {}",
                        declared.temps
                    ));
                }
            }
        }
        RegisterKind::IndexableTemp => {
            if let Some(register) = operand.indices[0].as_imm32() {
                if !declared.has_indexable(register) {
                    return Err(format!("x{register} is used but not declared"));
                }
            }
        }
        kind if kind.is_resource_range() => match operand.indices[0].as_imm32() {
            Some(super::DYNAMIC_RANGE) if is_dynamic_register(program.model, operand) => {
                check_dynamic_register(program.model, operand)?
            }
            Some(id) if declared.has_range(kind, id) => {
                check_pre_sm51_register(program.model, operand, id)?
            }
            Some(id) => return Err(format!("{name}{id} is used but not declared")),
            None => return Err(format!("{name} operand has no immediate range id")),
        },
        _ => {}
    }
    for index in operand.indices() {
        if let Some(relative) = index.relative() {
            if depth >= 4 {
                return Err("relative addresses nest too deeply".into());
            }
            let Some(inner) = program.operands.get(relative.0 as usize) else {
                return Err(format!(
                    "relative operand {} is outside the arena",
                    relative.0
                ));
            };
            if inner.components == ComponentCount::Four
                && !matches!(inner.selection, Selection::Select1(_))
                && inner.selection.mask().count_ones() != 1
            {
                return Err(format!(
                    "the relative address of {name} selects more than one component"
                ));
            }
            check_operand(program, inner, false, declared, depth + 1)
                .map_err(|e| format!("in the index of {name}: {e}"))?;
        }
    }
    Ok(())
}

/// Checks block structure: `if`/`else`/`endif`, `loop`/`endloop`, `switch`/`case`/`default`/
/// `endswitch`, and that `break`/`continue` sit inside a loop or switch.
pub fn validate_control_flow(program: &Program) -> Result<()> {
    use crate::isa::Opcode as O;
    #[derive(PartialEq, Clone, Copy)]
    enum Block {
        If,
        Else,
        Loop,
        Switch,
    }
    // Inline for typical nesting depths.
    let mut stack: SmallVec<[Block; 16]> = SmallVec::new();
    // Per open switch, whether it had its `default`.
    let mut defaults: SmallVec<[bool; 8]> = SmallVec::new();
    // The subroutine (`l#`) and function-body (`fb#`) labels seen.
    let mut labels: HashSet<(RegisterKind, u32)> = HashSet::default();
    let mut previous = None;
    for (index, instruction) in program.instructions.iter().enumerate() {
        let fail =
            |message: &str| Err(Error::instruction(index as u32, instruction.dword, message));
        // Nothing runs between `switch` and its first label.
        if previous == Some(O::Switch)
            && !matches!(instruction.opcode, O::Case | O::Default | O::EndSwitch)
        {
            return fail("an instruction between switch and its first case or default");
        }
        previous = Some(instruction.opcode);
        match instruction.opcode {
            O::If => stack.push(Block::If),
            O::Else => match stack.last_mut() {
                Some(top @ Block::If) => *top = Block::Else,
                _ => return fail("else without a matching if"),
            },
            O::EndIf => match stack.pop() {
                Some(Block::If | Block::Else) => {}
                _ => return fail("endif without a matching if"),
            },
            O::Loop => stack.push(Block::Loop),
            O::EndLoop if stack.pop() != Some(Block::Loop) => {
                return fail("endloop without a matching loop");
            }
            O::Switch => {
                stack.push(Block::Switch);
                defaults.push(false);
            }
            O::EndSwitch if stack.pop() != Some(Block::Switch) => {
                return fail("endswitch without a matching switch");
            }
            O::EndSwitch => {
                defaults.pop();
            }
            O::Case | O::Default if stack.last() != Some(&Block::Switch) => {
                return fail("case or default outside a switch");
            }
            O::Default => {
                if let Some(seen) = defaults.last_mut() {
                    if std::mem::replace(seen, true) {
                        return fail("a second default in one switch");
                    }
                }
            }
            O::Break | O::Breakc
                if !stack
                    .iter()
                    .any(|b| matches!(b, Block::Loop | Block::Switch)) =>
            {
                return fail("break outside a loop or switch");
            }
            O::Continue | O::Continuec if !stack.contains(&Block::Loop) => {
                return fail("continue outside a loop");
            }
            O::Label | O::HsForkPhase | O::HsJoinPhase | O::HsControlPointPhase | O::HsDecls
                if !stack.is_empty() =>
            {
                return fail("a subroutine or phase starts inside an open block");
            }
            O::Label => {
                let label = program.srcs(instruction).first().and_then(|o| {
                    let number = o.indices().first()?.as_imm32()?;
                    matches!(o.kind, RegisterKind::Label | RegisterKind::FunctionBody)
                        .then_some((o.kind, number))
                });
                let Some(label) = label else {
                    return fail("label needs a subroutine label (l#) or function body (fb#)");
                };
                if !labels.insert(label) {
                    return fail("a subroutine label is defined twice");
                }
            }
            _ => {}
        }
    }
    if !stack.is_empty() {
        let dword = program.instructions.last().map_or(0, |i| i.dword);
        return Err(Error::instruction(
            program.instructions.len().saturating_sub(1) as u32,
            dword,
            format!(
                "{} block(s) are still open at the end of the program",
                stack.len()
            ),
        ));
    }
    Ok(())
}
