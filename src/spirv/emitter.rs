//! The emitter: module set-up, the walk over declarations and instructions, functions for
//! subroutines, and the entry point.

use crate::fast_hash::HashMap;
use spirv::{AddressingModel, ExecutionMode, ExecutionModel, MemoryModel, StorageClass, Word};

use super::flow::Construct;
use super::module::{built, Module, Scalar};
use crate::analysis::temp_types::{infer_temp_types, TempTypes};
use crate::container::ChunkInfo;
use crate::error::{Error, Location, Result};
use crate::ir::{Declaration, Instruction, Operand, Program, RegisterKind, Stage};
use crate::isa::Opcode;
use crate::TranslateOptions;

/// A value in the emitted code: a scalar or a vector of `count` components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Val {
    /// The SPIR-V id.
    pub id: Word,
    /// The component type.
    pub scalar: Scalar,
    /// The number of components (1 = scalar).
    pub count: u32,
}

/// An indexable temp `x#`: a private array of vectors.
#[derive(Debug, Clone, Copy)]
pub struct IndexableTemp {
    /// The variable.
    pub var: Word,
    /// Elements.
    pub size: u32,
}

/// The emitter's state.
pub struct Emitter<'a> {
    /// The module under construction.
    pub m: Module,
    /// The program being translated.
    pub program: &'a Program,
    /// Signatures and resource definitions of the container.
    pub reflection: &'a ChunkInfo,
    /// Back-end options.
    pub options: &'a TranslateOptions,
    /// Index and dword of the instruction being translated (for errors).
    pub at: (u32, u32),
    /// Inferred component types of the temps.
    pub temp_types: TempTypes,
    /// What is known of values in the block being emitted (loaded read-only vectors).
    pub known: super::block_values::BlockValues,
    /// Indexable temps by register.
    pub indexable: HashMap<u32, IndexableTemp>,
    /// Module-scope variables, for the entry point's interface.
    pub globals: Globals,
    /// The subroutines and function bodies, inlined where they are called.
    pub subroutines: super::subroutines::Subroutines,
    /// The open control-flow constructs of the current function.
    pub flow: Vec<Construct>,
    /// Whether the selected block is still open (not terminated).
    pub block_open: bool,
    /// Execution modes to declare on the entry point.
    pub modes: Vec<(ExecutionMode, smallvec::SmallVec<[u32; 3]>)>,
    /// State of the I/O lowering.
    pub io: super::io::IoState,
    /// State of the resource lowering.
    pub res: super::resources::ResourceState,
    /// The descriptor bindings of the program's ranges.
    pub bindings: &'a crate::analysis::binding_plan::BindingPlan,
    /// Where the signature elements are (used when a map or dual-source blending places
    /// them; the register scheme's locations are the registers).
    pub placements: &'a crate::interface::Placements,
    /// The `fma64` helper function, once a `dfma` calls it (see [`super::fma64`]).
    pub fma64: Option<Word>,
    /// State of the class-linkage lowering.
    pub link: super::linkage::LinkageState,
    /// Temps as SSA values (see [`super::ssa`]).
    pub ssa: super::ssa::Ssa,
    /// How values were taken apart, put together and bitcast (see [`super::value_facts`]).
    pub facts: super::value_facts::ValueFacts,
}

/// Module-scope variables with their storage classes (inline up to sixteen: most shaders'
/// interfaces and resources fit).
pub type Globals = smallvec::SmallVec<[(Word, StorageClass); 16]>;

/// The emitter's tables, kept from one translation to the next by a [`crate::Translator`]
/// so that a translation reuses memory that is already mapped and in cache (bounded by
/// [`KEPT_BYTES`]).
#[derive(Default)]
pub(crate) struct Kept {
    module: super::module::ModuleTables,
    known: super::block_values::BlockValues,
    globals: Globals,
    io: super::io::IoTables,
    facts: super::value_facts::ValueFacts,
    ssa: super::ssa::Ssa,
}

impl Kept {
    /// The memory of the last module, lent to the next (see [`super::builder::Recycled`]).
    pub(crate) fn recycled(&mut self) -> &mut super::builder::Recycled {
        &mut self.module.recycled
    }

    /// The bytes of memory the tables hold.
    pub(crate) fn held_bytes(&self) -> usize {
        self.module.held_bytes()
            + self.known.held_bytes()
            + crate::fast_hash::spilled_bytes(&self.globals)
            + self.io.held_bytes()
            + self.facts.held_bytes()
            + self.ssa.held_bytes()
    }
}

/// The most memory of tables kept, in bytes: the tables (up to 128 KiB) and the recycled
/// memory of the last module (up to 64 KiB of block lists and 96 KiB of sections; see
/// [`super::builder::Recycled`]).
pub(crate) const KEPT_BYTES: usize = 288 * 1024;

impl<'a> Emitter<'a> {
    /// Declares an execution mode with its literal parameters on the entry point.
    pub fn push_mode(&mut self, mode: ExecutionMode, args: &[u32]) {
        self.modes
            .push((mode, smallvec::SmallVec::from_slice(args)));
    }

    /// Emits the module of a whole program (not yet optimised); the emitter's tables are
    /// kept in `workspace` for the next translation, or freed, before it returns.
    pub fn run(
        program: &'a Program,
        reflection: &'a ChunkInfo,
        options: &'a TranslateOptions,
        bindings: &'a crate::analysis::binding_plan::BindingPlan,
        placements: &'a crate::interface::Placements,
        workspace: &mut crate::pipeline::Workspace,
    ) -> Result<Box<super::builder::Module>> {
        super::with_tables(
            &mut workspace.emitter,
            workspace.keep,
            KEPT_BYTES,
            Kept::held_bytes,
            |kept| Emitter::run_with(program, reflection, options, bindings, placements, kept),
        )
    }

    /// [`Emitter::run`] with the emitter's tables (emptied first, refilled at the end).
    fn run_with(
        program: &'a Program,
        reflection: &'a ChunkInfo,
        options: &'a TranslateOptions,
        bindings: &'a crate::analysis::binding_plan::BindingPlan,
        placements: &'a crate::interface::Placements,
        kept: &mut Kept,
    ) -> Result<Box<super::builder::Module>> {
        kept.known.forget();
        // Room for the ids of a program of this size (about eight a DXBC instruction), so
        // that the table does not grow from empty one id at a time.
        kept.facts.forget(program.instructions.len() * 8 + 64);
        kept.globals.clear();
        kept.ssa.forget();
        let mut e = Emitter {
            m: Module::with_tables(std::mem::take(&mut kept.module)),
            program,
            reflection,
            options,
            at: (0, 0),
            temp_types: infer_temp_types(program),
            known: std::mem::take(&mut kept.known),
            indexable: HashMap::default(),
            globals: std::mem::take(&mut kept.globals),
            subroutines: super::subroutines::Subroutines::of(program),
            flow: Vec::new(),
            block_open: false,
            modes: Vec::new(),
            io: super::io::IoState::with_tables(std::mem::take(&mut kept.io)),
            res: Default::default(),
            bindings,
            placements,
            fma64: None,
            link: Default::default(),
            ssa: std::mem::take(&mut kept.ssa),
            facts: std::mem::take(&mut kept.facts),
        };
        // A function's first block holds most of its code: about four SPIR-V instructions a
        // DXBC instruction, up to the largest list a translator keeps for the next module.
        e.m.b
            .set_first_block_room((program.instructions.len() * 4).clamp(32, 1024));
        let (major, minor) = options.target.spirv_version();
        e.m.b.set_version(major, minor);
        e.m.capability(spirv::Capability::Shader);
        e.stage_setup();
        e.placed_setup()?;
        e.declarations()?;
        e.stream_output_setup()?;
        let entry = e.functions()?;
        let entry = e.interlock_wrapper(entry)?;
        e.fma64_finish()?;
        e.entry_point(entry)?;
        e.m.finish_header();
        // The module moves out and the emitter's other tables are freed (or kept for the
        // next translation) before the optimiser's are made, so that the two are never in
        // memory together.
        let Emitter {
            mut m,
            known,
            globals,
            mut io,
            facts,
            ssa,
            ..
        } = e;
        *kept = Kept {
            module: m.take_tables(),
            known,
            globals,
            io: io.take_tables(),
            facts,
            ssa,
        };
        drop(io);
        Ok(m.b.module())
    }

    /// An error at the current instruction.
    #[cold]
    #[inline(never)]
    pub fn err(&self, message: impl Into<String>) -> Error {
        Error::instruction(self.at.0, self.at.1, message)
    }

    /// An internal error (a fault of the translator, not of the input) at the current
    /// instruction.
    #[cold]
    #[inline(never)]
    pub fn internal(&self, message: impl std::fmt::Display) -> Error {
        Error::instruction(self.at.0, self.at.1, format!("internal: {message}"))
            .with_kind(crate::ErrorKind::Internal)
    }

    /// An "unsupported" error at the current instruction.
    #[cold]
    #[inline(never)]
    pub fn unsupported(&self, message: impl Into<String>) -> Error {
        Error::unsupported(
            Location::Instruction {
                index: self.at.0,
                dword: self.at.1,
            },
            message,
        )
    }

    /// Records a module-scope variable.
    pub fn global(&mut self, pointee: Word, class: StorageClass, name: Option<String>) -> Word {
        let id = self.m.global_variable(pointee, class);
        self.globals.push((id, class));
        if let (Some(name), true) = (name, self.options.debug_names) {
            self.m.b.name(id, name);
        }
        id
    }

    /// A private array variable initialised with constant `elements` (a lookup table).
    pub fn private_table(&mut self, array: Word, elements: Vec<Word>) -> Word {
        let init = self.m.b.constant_composite(array, elements);
        let id = self
            .m
            .global_variable_init(array, StorageClass::Private, Some(init));
        self.globals.push((id, StorageClass::Private));
        id
    }

    pub(super) fn set_at(&mut self, index: usize, instruction: &Instruction) {
        self.at = (index as u32, instruction.dword);
    }

    /// Processes every declaration before any code is emitted.
    fn declarations(&mut self) -> Result<()> {
        for (index, instruction) in self.program.instructions.iter().enumerate() {
            let Some(declaration) = &instruction.declaration else {
                continue;
            };
            self.set_at(index, instruction);
            self.declaration(instruction, declaration)?;
        }
        Ok(())
    }

    fn declaration(&mut self, instruction: &Instruction, declaration: &Declaration) -> Result<()> {
        if self.stage_declaration(declaration)? || self.linkage_declaration(declaration)? {
            return Ok(());
        }
        match declaration {
            Declaration::GlobalFlags(flags) => {
                self.double_global_flags(*flags);
                self.io_global_flags(*flags)
            }
            Declaration::Temps(_) => Ok(()),
            Declaration::IndexableTemp {
                register,
                size,
                components,
            } => self.declare_indexable(*register, *size, *components),
            Declaration::ThreadGroup([x, y, z]) => {
                if [x, y, z].iter().any(|&&n| n == 0) {
                    return Err(self.err(format!("dcl_thread_group {x}, {y}, {z}: a size is 0")));
                }
                self.push_mode(ExecutionMode::LocalSize, &[*x, *y, *z]);
                Ok(())
            }
            Declaration::Signature { .. } | Declaration::IndexRange { .. } => {
                self.declare_io(instruction, declaration)
            }
            _ => self.declare_resource(instruction, declaration),
        }
    }

    /// Emits the main function (subroutines are inlined where they are called); returns
    /// its id.
    fn functions(&mut self) -> Result<Word> {
        if self.program.model.stage == Stage::Hull {
            return self.hull_functions();
        }
        let subroutines = self.program.subroutines_start();
        let main = self.begin_void_function(None)?;
        self.io_prologue()?;
        self.translate_code(0..subroutines)?;
        self.end_function()?;
        Ok(main)
    }

    pub(super) fn end_function(&mut self) -> Result<()> {
        if !self.flow.is_empty() {
            return Err(self.err("a function ends inside an open if, loop or switch"));
        }
        if self.block_open {
            self.function_exit()?;
            built(self.m.b.ret())?;
            self.block_open = false;
        }
        self.ssa_finish_function()?;
        built(self.m.b.end_function())
    }

    /// Begins a `void()` function (with result id `id` when given) and its first block;
    /// returns the function's id.
    pub(super) fn begin_void_function(&mut self, id: Option<Word>) -> Result<Word> {
        let void = self.m.void();
        let fn_type = self.m.void_function();
        let function = built(self.m.b.begin_function(
            void,
            id,
            spirv::FunctionControl::NONE,
            fn_type,
        ))?;
        built(self.m.b.begin_block(None))?;
        self.block_open = true;
        Ok(function)
    }

    /// Emits one instruction.
    pub(super) fn instruction(&mut self, instruction: &Instruction) -> Result<()> {
        let structural = matches!(
            instruction.opcode,
            Opcode::Case
                | Opcode::Default
                | Opcode::Else
                | Opcode::EndIf
                | Opcode::EndLoop
                | Opcode::EndSwitch
        );
        if !structural {
            self.ensure_block()?;
            self.note_case_code();
        }
        let name = || instruction.opcode.name();
        let handled = match part(instruction.opcode) {
            // A documented choice: `abort` and `debug_break` do nothing, as on D3D's
            // hardware drivers (only the reference device stops there). Vulkan has no way to
            // end a whole draw or dispatch, nor a debugger to break into.
            Part::Ignored => true,
            Part::Flow => self.flow_instruction(instruction)?,
            Part::Double => self.double_instruction(instruction)?,
            Part::Alu => self.alu_instruction(instruction)?,
            Part::Resource => self.resource_instruction(instruction)?,
            Part::Sparse => self.sparse_instruction(instruction)?,
            Part::Io => self.io_instruction(instruction)?,
            Part::Geometry => self.geometry_instruction(instruction)?,
            Part::Linkage => self.linkage_instruction(instruction)?,
            Part::Declaration => {
                return Err(self.err(format!(
                    "{} is a declaration without its declaration data",
                    name()
                )))
            }
            // Subroutine labels start functions (see `functions`); none reaches here.
            Part::Label => return Err(self.err("a label inside a function body")),
            Part::PhaseMarker => {
                return Err(self.err(format!(
                    "{} starts a hull-shader phase: only hull shaders have phases \
                     (d3d11TokenizedProgramFormat.hpp: the token marks the beginning of an \
                     HS sub-shader)",
                    name()
                )))
            }
        };
        if handled {
            Ok(())
        } else {
            Err(self.err(dispatch_miss(instruction.opcode)))
        }
    }

    /// Starts a fresh block when the previous one was terminated (code after `ret`,
    /// `break` or `continue` is unreachable but must still sit in a block).
    pub fn ensure_block(&mut self) -> Result<()> {
        if !self.block_open {
            built(self.m.b.begin_block(None))?;
            self.block_open = true;
        }
        Ok(())
    }

    fn entry_point(&mut self, main: Word) -> Result<()> {
        self.stage_finish()?;
        let model = match self.program.model.stage {
            Stage::Vertex => ExecutionModel::Vertex,
            Stage::Pixel => ExecutionModel::Fragment,
            Stage::Compute => ExecutionModel::GLCompute,
            Stage::Geometry => ExecutionModel::Geometry,
            Stage::Hull => ExecutionModel::TessellationControl,
            Stage::Domain => ExecutionModel::TessellationEvaluation,
        };
        if model == ExecutionModel::Fragment {
            self.push_mode(ExecutionMode::OriginUpperLeft, &[]);
        }
        if self.options.features.signed_zero_inf_nan_preserve_float32 {
            // D3D's float rules keep NaN and infinities through arithmetic (`0 * inf` is
            // NaN) and the sign of zeros; without the mode a Vulkan compiler may fold
            // `x * 0` to 0 (Mesa does: the differential test found it).
            self.m
                .capability(spirv::Capability::SignedZeroInfNanPreserve);
            if self.options.target.spirv_version() < (1, 4) {
                self.m.extension("SPV_KHR_float_controls");
            }
            self.push_mode(ExecutionMode::SignedZeroInfNanPreserve, &[32]);
        }
        if model == ExecutionModel::GLCompute
            && !self
                .modes
                .iter()
                .any(|(m, _)| *m == ExecutionMode::LocalSize)
        {
            return Err(Error::new(
                Location::None,
                "a compute shader needs dcl_thread_group",
            ));
        }
        let (major, minor) = self.options.target.spirv_version();
        let all_globals = (major, minor) >= (1, 4);
        let interface: smallvec::SmallVec<[Word; 16]> = self
            .globals
            .iter()
            .filter(|(_, class)| {
                all_globals || matches!(class, StorageClass::Input | StorageClass::Output)
            })
            .map(|(id, _)| *id)
            .collect();
        self.m
            .b
            .memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        self.m.entry_point(model, main, "main", &interface);
        for (mode, operands) in std::mem::take(&mut self.modes) {
            self.m.b.execution_mode(main, mode, operands);
        }
        Ok(())
    }

    /// The operand arena entry for a declaration's operand.
    pub fn operand(&self, id: crate::ir::OperandId) -> &'a Operand {
        self.program.operand(id)
    }

    /// Decorates an id.
    pub fn decorate(&mut self, id: Word, decoration: spirv::Decoration, operands: &[u32]) {
        self.m.decorate(id, decoration, operands);
    }

    /// Returns whether a register kind is one the I/O lowering owns.
    pub fn is_io_register(kind: RegisterKind) -> bool {
        !matches!(
            kind,
            RegisterKind::Temp
                | RegisterKind::IndexableTemp
                | RegisterKind::Immediate32
                | RegisterKind::Immediate64
                | RegisterKind::ConstantBuffer
                | RegisterKind::ImmediateConstantBuffer
                | RegisterKind::Resource
                | RegisterKind::Sampler
                | RegisterKind::UnorderedAccessView
                | RegisterKind::ThreadGroupSharedMemory
                | RegisterKind::Null
                | RegisterKind::Label
        )
    }
}

/// Which part of the back end translates an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// A declaration: handled before any code (see `declarations`).
    Declaration,
    /// `label`: starts a subroutine's function.
    Label,
    /// `hs_decls` and the other hull-shader phase markers: start a phase's function.
    PhaseMarker,
    /// `abort` and `debug_break`: translated to nothing.
    Ignored,
    /// Control flow ([`super::flow`]).
    Flow,
    /// Double precision ([`super::doubles`]).
    Double,
    /// 32-bit arithmetic, logic, bits and conversions ([`super::alu`]).
    Alu,
    /// Textures, buffers, atomics and `sync` ([`super::resources`], [`super::textures`]).
    Resource,
    /// The `_s` forms with a residency status ([`super::sparse`]).
    Sparse,
    /// Attribute evaluation ([`super::io`]).
    Io,
    /// Vertex emission of geometry shaders ([`super::geometry`]).
    Geometry,
    /// `fcall` ([`super::linkage`]).
    Linkage,
}

/// The part of the back end that translates `opcode`: one exhaustive match, so that an
/// opcode the table gains fails to build until it is given a part (and a unit test checks
/// that each part handles every opcode given to it).
pub(super) fn part(opcode: Opcode) -> Part {
    use Opcode as O;
    match opcode {
        O::CustomData
        | O::DclResource
        | O::DclConstantBuffer
        | O::DclSampler
        | O::DclIndexRange
        | O::DclGsOutputPrimitiveTopology
        | O::DclGsInputPrimitive
        | O::DclMaxOutputVertexCount
        | O::DclInput
        | O::DclInputSgv
        | O::DclInputSiv
        | O::DclInputPs
        | O::DclInputPsSgv
        | O::DclInputPsSiv
        | O::DclOutput
        | O::DclOutputSgv
        | O::DclOutputSiv
        | O::DclTemps
        | O::DclIndexableTemp
        | O::DclGlobalFlags
        | O::DclStream
        | O::DclFunctionBody
        | O::DclFunctionTable
        | O::DclInterface
        | O::DclInputControlPointCount
        | O::DclOutputControlPointCount
        | O::DclTessDomain
        | O::DclTessPartitioning
        | O::DclTessOutputPrimitive
        | O::DclHsMaxTessFactor
        | O::DclHsForkPhaseInstanceCount
        | O::DclHsJoinPhaseInstanceCount
        | O::DclThreadGroup
        | O::DclUavTyped
        | O::DclUavRaw
        | O::DclUavStructured
        | O::DclTgsmRaw
        | O::DclTgsmStructured
        | O::DclResourceRaw
        | O::DclResourceStructured
        | O::DclGsInstanceCount => Part::Declaration,
        O::Label => Part::Label,
        O::HsDecls | O::HsControlPointPhase | O::HsForkPhase | O::HsJoinPhase => Part::PhaseMarker,
        O::Abort | O::DebugBreak => Part::Ignored,
        O::Break
        | O::Breakc
        | O::Call
        | O::Callc
        | O::Case
        | O::Continue
        | O::Continuec
        | O::Default
        | O::Discard
        | O::Else
        | O::EndIf
        | O::EndLoop
        | O::EndSwitch
        | O::If
        | O::Loop
        | O::Nop
        | O::Ret
        | O::Retc
        | O::Switch => Part::Flow,
        O::Dadd
        | O::Dmax
        | O::Dmin
        | O::Dmul
        | O::Deq
        | O::Dge
        | O::Dlt
        | O::Dne
        | O::Dmov
        | O::Dmovc
        | O::Dtof
        | O::Ftod
        | O::Ddiv
        | O::Dfma
        | O::Drcp
        | O::Dtoi
        | O::Dtou
        | O::Itod
        | O::Utod => Part::Double,
        O::Add
        | O::And
        | O::DerivRtx
        | O::DerivRty
        | O::Div
        | O::Dp2
        | O::Dp3
        | O::Dp4
        | O::Eq
        | O::Exp
        | O::Frc
        | O::Ftoi
        | O::Ftou
        | O::Ge
        | O::Iadd
        | O::Ieq
        | O::Ige
        | O::Ilt
        | O::Imad
        | O::Imax
        | O::Imin
        | O::Imul
        | O::Ine
        | O::Ineg
        | O::Ishl
        | O::Ishr
        | O::Itof
        | O::Log
        | O::Lt
        | O::Mad
        | O::Min
        | O::Max
        | O::Mov
        | O::Movc
        | O::Mul
        | O::Ne
        | O::Not
        | O::Or
        | O::RoundNe
        | O::RoundNi
        | O::RoundPi
        | O::RoundZ
        | O::Rsq
        | O::Sqrt
        | O::Sincos
        | O::Udiv
        | O::Ult
        | O::Uge
        | O::Umul
        | O::Umad
        | O::Umax
        | O::Umin
        | O::Ushr
        | O::Utof
        | O::Xor
        | O::DerivRtxCoarse
        | O::DerivRtxFine
        | O::DerivRtyCoarse
        | O::DerivRtyFine
        | O::Rcp
        | O::F32ToF16
        | O::F16ToF32
        | O::Uaddc
        | O::Usubb
        | O::Countbits
        | O::FirstbitHi
        | O::FirstbitLo
        | O::FirstbitShi
        | O::Ubfe
        | O::Ibfe
        | O::Bfi
        | O::Bfrev
        | O::Swapc
        | O::Msad => Part::Alu,
        O::Ld
        | O::LdMs
        | O::Resinfo
        | O::Sample
        | O::SampleC
        | O::SampleCLz
        | O::SampleL
        | O::SampleD
        | O::SampleB
        | O::Lod
        | O::Gather4
        | O::SamplePos
        | O::SampleInfo
        | O::Bufinfo
        | O::Gather4C
        | O::Gather4Po
        | O::Gather4PoC
        | O::LdUavTyped
        | O::StoreUavTyped
        | O::LdRaw
        | O::StoreRaw
        | O::LdStructured
        | O::StoreStructured
        | O::AtomicAnd
        | O::AtomicOr
        | O::AtomicXor
        | O::AtomicCmpStore
        | O::AtomicIadd
        | O::AtomicImax
        | O::AtomicImin
        | O::AtomicUmax
        | O::AtomicUmin
        | O::ImmAtomicAlloc
        | O::ImmAtomicConsume
        | O::ImmAtomicIadd
        | O::ImmAtomicAnd
        | O::ImmAtomicOr
        | O::ImmAtomicXor
        | O::ImmAtomicExch
        | O::ImmAtomicCmpExch
        | O::ImmAtomicImax
        | O::ImmAtomicImin
        | O::ImmAtomicUmax
        | O::ImmAtomicUmin
        | O::Sync => Part::Resource,
        O::Gather4S
        | O::Gather4CS
        | O::Gather4PoS
        | O::Gather4PoCS
        | O::LdS
        | O::LdMsS
        | O::LdUavTypedS
        | O::LdRawS
        | O::LdStructuredS
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClS
        | O::SampleBClS
        | O::SampleDClS
        | O::SampleCClS
        | O::CheckAccessFullyMapped => Part::Sparse,
        O::EvalSnapped | O::EvalSampleIndex | O::EvalCentroid => Part::Io,
        O::Emit | O::Cut | O::EmitThenCut | O::EmitStream | O::CutStream | O::EmitThenCutStream => {
            Part::Geometry
        }
        O::InterfaceCall => Part::Linkage,
    }
}

/// The message of an opcode its part of the back end did not handle: a bug of the back end
/// (the dispatch test walks every opcode so that none is left to this).
#[cold]
pub(super) fn dispatch_miss(opcode: Opcode) -> String {
    format!(
        "{}: the {:?} part of the back end does not handle it (a back-end bug)",
        opcode.name(),
        part(opcode)
    )
}

#[cfg(test)]
mod dispatch_tests {
    use super::{part, Part};
    use crate::container::ChunkInfo;
    use crate::ir::Instruction;
    use crate::isa::OPCODES;
    use crate::spirv::translate;
    use crate::TranslateOptions as Options;

    /// Every opcode of the table goes to a part of the back end that handles it: each one,
    /// without operands, is put in a pixel shader and translated; whatever the part answers
    /// (a module, or an error about the missing operands or the stage), it must not be the
    /// dispatch's "does not handle it", nor a "not translated" one.
    #[test]
    fn every_opcode_reaches_a_part_that_handles_it() {
        let base = crate::asm::parse_program("ps_5_0\ndcl_temps 4\nret\n").expect("assembles");
        for info in OPCODES {
            let opcode = info.opcode;
            assert_eq!(
                part(opcode) == Part::Declaration,
                opcode.is_declaration(),
                "{}: declarations and only they are given to the declaration part",
                info.name
            );
            if matches!(
                part(opcode),
                Part::Declaration | Part::Label | Part::PhaseMarker
            ) {
                continue;
            }
            let mut program = base.clone();
            let at = program.instructions.len() - 1;
            program.instructions.insert(at, Instruction::new(opcode));
            if let Err(e) = translate(&program, &ChunkInfo::default(), &Options::default()) {
                assert!(
                    !e.message.contains("back-end bug") && !e.message.contains("not translated"),
                    "{} (given to the {:?} part): {e}",
                    info.name,
                    part(opcode)
                );
            }
        }
    }

    /// A phase marker outside a hull shader is an error that names the rule.
    #[test]
    fn a_phase_marker_outside_a_hull_shader_is_invalid() {
        let mut program =
            crate::asm::parse_program("vs_5_0\ndcl_temps 1\nret\n").expect("assembles");
        program
            .instructions
            .insert(1, Instruction::new(crate::isa::Opcode::HsForkPhase));
        let e = translate(&program, &ChunkInfo::default(), &Options::default())
            .expect_err("hs_fork_phase in a vertex shader");
        assert_eq!(e.kind, crate::error::ErrorKind::Invalid, "{e}");
        assert!(
            e.message.contains("only hull shaders have phases"),
            "{}",
            e.message
        );
    }
}
