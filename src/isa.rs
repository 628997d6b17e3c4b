//! The instruction set: the opcode table of the tokenized program format, one line per
//! opcode, from which the decoder, the encoder, the disassembler, the assembler, the IR's
//! checks and the back end all follow. A leaf module: it depends on nothing else in the crate.
//!
//! Each line gives the opcode's code, its assembly name, its layout ([`Layout`]), and for
//! ordinary instructions the value types of its destination and source operands.

/// How an instruction reads or writes an operand's 32-bit components.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// 32-bit float.
    F32,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit float held in pairs of 32-bit components.
    F64,
    /// Bits moved or combined without interpretation (`mov`, `and`, loads, stores).
    Bits,
    /// Not a value: a resource, sampler, label, stream or the like.
    None,
}

/// How an opcode's tokens after the opcode token are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Destination operands then source operands, as listed in the table.
    Operands,
    /// A declaration with its own layout (decoded per opcode).
    Declaration,
    /// A custom-data block (`dcl_immediateConstantBuffer`, comments, …): the length is the
    /// second dword.
    CustomData,
    /// `fcall`: a function index dword, then the interface operand.
    InterfaceCall,
}

/// What else an opcode token's control bits (11–23) carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// `_sat` (bit 13) and `precise` (bits 19–22).
    Plain,
    /// As `Plain`, plus the zero/non-zero test (bit 18).
    Test,
    /// As `Plain`, plus the `resinfo` return type (bits 11–12).
    ResinfoReturn,
    /// As `Plain`, plus the `sampleinfo` return type (bit 11).
    InfoReturn,
    /// `sync` flags (bits 11–14).
    Sync,
    /// Declaration-specific bits.
    Declaration,
}

/// One row of the opcode table.
#[derive(Debug, Clone, Copy)]
pub struct OpcodeInfo {
    /// The opcode.
    pub opcode: Opcode,
    /// Assembly name, e.g. `imm_atomic_cmp_exch`.
    pub name: &'static str,
    /// Token layout.
    pub layout: Layout,
    /// Meaning of the control bits.
    pub control: Control,
    /// Value types of the destination operands.
    pub dsts: &'static [ValueType],
    /// Value types of the source operands.
    pub srcs: &'static [ValueType],
}

macro_rules! opcode_table {
    ($($variant:ident = $code:expr, $name:expr, $layout:ident, $control:ident, [$($d:ident),*], [$($s:ident),*];)*) => {
        /// An opcode of the tokenized program format. Values are the format's opcode codes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant = $code,
            )*
        }

        /// The table's rows as a constant, so that [`LOOKUP`] is built at compile time.
        const ROWS: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                opcode: Opcode::$variant,
                name: $name,
                layout: Layout::$layout,
                control: Control::$control,
                dsts: &[$(ValueType::$d),*],
                srcs: &[$(ValueType::$s),*],
            },)*
        ];

        /// The table: one row per opcode, in code order.
        pub static OPCODES: &[OpcodeInfo] = ROWS;
    };
}

// Operand value types: F32, I32, U32, F64, Bits (uninterpreted), None (resource, sampler,
// label, stream).
opcode_table! {
    Add = 0, "add", Operands, Plain, [F32], [F32, F32];
    And = 1, "and", Operands, Plain, [U32], [U32, U32];
    Break = 2, "break", Operands, Plain, [], [];
    Breakc = 3, "breakc", Operands, Test, [], [U32];
    Call = 4, "call", Operands, Plain, [], [None];
    Callc = 5, "callc", Operands, Test, [], [U32, None];
    Case = 6, "case", Operands, Plain, [], [U32];
    Continue = 7, "continue", Operands, Plain, [], [];
    Continuec = 8, "continuec", Operands, Test, [], [U32];
    Cut = 9, "cut", Operands, Plain, [], [];
    Default = 10, "default", Operands, Plain, [], [];
    DerivRtx = 11, "deriv_rtx", Operands, Plain, [F32], [F32];
    DerivRty = 12, "deriv_rty", Operands, Plain, [F32], [F32];
    Discard = 13, "discard", Operands, Test, [], [U32];
    Div = 14, "div", Operands, Plain, [F32], [F32, F32];
    Dp2 = 15, "dp2", Operands, Plain, [F32], [F32, F32];
    Dp3 = 16, "dp3", Operands, Plain, [F32], [F32, F32];
    Dp4 = 17, "dp4", Operands, Plain, [F32], [F32, F32];
    Else = 18, "else", Operands, Plain, [], [];
    Emit = 19, "emit", Operands, Plain, [], [];
    EmitThenCut = 20, "emit_then_cut", Operands, Plain, [], [];
    EndIf = 21, "endif", Operands, Plain, [], [];
    EndLoop = 22, "endloop", Operands, Plain, [], [];
    EndSwitch = 23, "endswitch", Operands, Plain, [], [];
    Eq = 24, "eq", Operands, Plain, [U32], [F32, F32];
    Exp = 25, "exp", Operands, Plain, [F32], [F32];
    Frc = 26, "frc", Operands, Plain, [F32], [F32];
    Ftoi = 27, "ftoi", Operands, Plain, [I32], [F32];
    Ftou = 28, "ftou", Operands, Plain, [U32], [F32];
    Ge = 29, "ge", Operands, Plain, [U32], [F32, F32];
    Iadd = 30, "iadd", Operands, Plain, [I32], [I32, I32];
    If = 31, "if", Operands, Test, [], [U32];
    Ieq = 32, "ieq", Operands, Plain, [U32], [I32, I32];
    Ige = 33, "ige", Operands, Plain, [U32], [I32, I32];
    Ilt = 34, "ilt", Operands, Plain, [U32], [I32, I32];
    Imad = 35, "imad", Operands, Plain, [I32], [I32, I32, I32];
    Imax = 36, "imax", Operands, Plain, [I32], [I32, I32];
    Imin = 37, "imin", Operands, Plain, [I32], [I32, I32];
    Imul = 38, "imul", Operands, Plain, [I32, I32], [I32, I32];
    Ine = 39, "ine", Operands, Plain, [U32], [I32, I32];
    Ineg = 40, "ineg", Operands, Plain, [I32], [I32];
    Ishl = 41, "ishl", Operands, Plain, [I32], [I32, U32];
    Ishr = 42, "ishr", Operands, Plain, [I32], [I32, U32];
    Itof = 43, "itof", Operands, Plain, [F32], [I32];
    Label = 44, "label", Operands, Plain, [], [None];
    Ld = 45, "ld", Operands, Plain, [Bits], [I32, None];
    LdMs = 46, "ldms", Operands, Plain, [Bits], [I32, None, I32];
    Log = 47, "log", Operands, Plain, [F32], [F32];
    Loop = 48, "loop", Operands, Plain, [], [];
    Lt = 49, "lt", Operands, Plain, [U32], [F32, F32];
    Mad = 50, "mad", Operands, Plain, [F32], [F32, F32, F32];
    Min = 51, "min", Operands, Plain, [F32], [F32, F32];
    Max = 52, "max", Operands, Plain, [F32], [F32, F32];
    CustomData = 53, "customdata", CustomData, Declaration, [], [];
    Mov = 54, "mov", Operands, Plain, [Bits], [Bits];
    Movc = 55, "movc", Operands, Plain, [Bits], [U32, Bits, Bits];
    Mul = 56, "mul", Operands, Plain, [F32], [F32, F32];
    Ne = 57, "ne", Operands, Plain, [U32], [F32, F32];
    Nop = 58, "nop", Operands, Plain, [], [];
    Not = 59, "not", Operands, Plain, [U32], [U32];
    Or = 60, "or", Operands, Plain, [U32], [U32, U32];
    Resinfo = 61, "resinfo", Operands, ResinfoReturn, [Bits], [U32, None];
    Ret = 62, "ret", Operands, Plain, [], [];
    Retc = 63, "retc", Operands, Test, [], [U32];
    RoundNe = 64, "round_ne", Operands, Plain, [F32], [F32];
    RoundNi = 65, "round_ni", Operands, Plain, [F32], [F32];
    RoundPi = 66, "round_pi", Operands, Plain, [F32], [F32];
    RoundZ = 67, "round_z", Operands, Plain, [F32], [F32];
    Rsq = 68, "rsq", Operands, Plain, [F32], [F32];
    Sample = 69, "sample", Operands, Plain, [Bits], [F32, None, None];
    SampleC = 70, "sample_c", Operands, Plain, [Bits], [F32, None, None, F32];
    SampleCLz = 71, "sample_c_lz", Operands, Plain, [Bits], [F32, None, None, F32];
    SampleL = 72, "sample_l", Operands, Plain, [Bits], [F32, None, None, F32];
    SampleD = 73, "sample_d", Operands, Plain, [Bits], [F32, None, None, F32, F32];
    SampleB = 74, "sample_b", Operands, Plain, [Bits], [F32, None, None, F32];
    Sqrt = 75, "sqrt", Operands, Plain, [F32], [F32];
    Switch = 76, "switch", Operands, Plain, [], [I32];
    Sincos = 77, "sincos", Operands, Plain, [F32, F32], [F32];
    Udiv = 78, "udiv", Operands, Plain, [U32, U32], [U32, U32];
    Ult = 79, "ult", Operands, Plain, [U32], [U32, U32];
    Uge = 80, "uge", Operands, Plain, [U32], [U32, U32];
    Umul = 81, "umul", Operands, Plain, [U32, U32], [U32, U32];
    Umad = 82, "umad", Operands, Plain, [U32], [U32, U32, U32];
    Umax = 83, "umax", Operands, Plain, [U32], [U32, U32];
    Umin = 84, "umin", Operands, Plain, [U32], [U32, U32];
    Ushr = 85, "ushr", Operands, Plain, [U32], [U32, U32];
    Utof = 86, "utof", Operands, Plain, [F32], [U32];
    Xor = 87, "xor", Operands, Plain, [U32], [U32, U32];
    DclResource = 88, "dcl_resource", Declaration, Declaration, [], [];
    DclConstantBuffer = 89, "dcl_constantbuffer", Declaration, Declaration, [], [];
    DclSampler = 90, "dcl_sampler", Declaration, Declaration, [], [];
    DclIndexRange = 91, "dcl_indexrange", Declaration, Declaration, [], [];
    DclGsOutputPrimitiveTopology = 92, "dcl_outputtopology", Declaration, Declaration, [], [];
    DclGsInputPrimitive = 93, "dcl_inputprimitive", Declaration, Declaration, [], [];
    DclMaxOutputVertexCount = 94, "dcl_maxout", Declaration, Declaration, [], [];
    DclInput = 95, "dcl_input", Declaration, Declaration, [], [];
    DclInputSgv = 96, "dcl_input_sgv", Declaration, Declaration, [], [];
    DclInputSiv = 97, "dcl_input_siv", Declaration, Declaration, [], [];
    DclInputPs = 98, "dcl_input_ps", Declaration, Declaration, [], [];
    DclInputPsSgv = 99, "dcl_input_ps_sgv", Declaration, Declaration, [], [];
    DclInputPsSiv = 100, "dcl_input_ps_siv", Declaration, Declaration, [], [];
    DclOutput = 101, "dcl_output", Declaration, Declaration, [], [];
    DclOutputSgv = 102, "dcl_output_sgv", Declaration, Declaration, [], [];
    DclOutputSiv = 103, "dcl_output_siv", Declaration, Declaration, [], [];
    DclTemps = 104, "dcl_temps", Declaration, Declaration, [], [];
    DclIndexableTemp = 105, "dcl_indexableTemp", Declaration, Declaration, [], [];
    DclGlobalFlags = 106, "dcl_globalFlags", Declaration, Declaration, [], [];
    Lod = 108, "lod", Operands, Plain, [F32], [F32, None, None];
    Gather4 = 109, "gather4", Operands, Plain, [Bits], [F32, None, None];
    SamplePos = 110, "samplepos", Operands, Plain, [F32], [None, U32];
    SampleInfo = 111, "sampleinfo", Operands, InfoReturn, [Bits], [None];
    HsDecls = 113, "hs_decls", Operands, Plain, [], [];
    HsControlPointPhase = 114, "hs_control_point_phase", Operands, Plain, [], [];
    HsForkPhase = 115, "hs_fork_phase", Operands, Plain, [], [];
    HsJoinPhase = 116, "hs_join_phase", Operands, Plain, [], [];
    EmitStream = 117, "emit_stream", Operands, Plain, [], [None];
    CutStream = 118, "cut_stream", Operands, Plain, [], [None];
    EmitThenCutStream = 119, "emit_then_cut_stream", Operands, Plain, [], [None];
    InterfaceCall = 120, "fcall", InterfaceCall, Plain, [], [None];
    Bufinfo = 121, "bufinfo", Operands, Plain, [U32], [None];
    DerivRtxCoarse = 122, "deriv_rtx_coarse", Operands, Plain, [F32], [F32];
    DerivRtxFine = 123, "deriv_rtx_fine", Operands, Plain, [F32], [F32];
    DerivRtyCoarse = 124, "deriv_rty_coarse", Operands, Plain, [F32], [F32];
    DerivRtyFine = 125, "deriv_rty_fine", Operands, Plain, [F32], [F32];
    Gather4C = 126, "gather4_c", Operands, Plain, [Bits], [F32, None, None, F32];
    Gather4Po = 127, "gather4_po", Operands, Plain, [Bits], [F32, I32, None, None];
    Gather4PoC = 128, "gather4_po_c", Operands, Plain, [Bits], [F32, I32, None, None, F32];
    Rcp = 129, "rcp", Operands, Plain, [F32], [F32];
    F32ToF16 = 130, "f32tof16", Operands, Plain, [U32], [F32];
    F16ToF32 = 131, "f16tof32", Operands, Plain, [F32], [U32];
    Uaddc = 132, "uaddc", Operands, Plain, [U32, U32], [U32, U32];
    Usubb = 133, "usubb", Operands, Plain, [U32, U32], [U32, U32];
    Countbits = 134, "countbits", Operands, Plain, [U32], [U32];
    FirstbitHi = 135, "firstbit_hi", Operands, Plain, [U32], [U32];
    FirstbitLo = 136, "firstbit_lo", Operands, Plain, [U32], [U32];
    FirstbitShi = 137, "firstbit_shi", Operands, Plain, [U32], [I32];
    Ubfe = 138, "ubfe", Operands, Plain, [U32], [U32, U32, U32];
    Ibfe = 139, "ibfe", Operands, Plain, [I32], [U32, U32, I32];
    Bfi = 140, "bfi", Operands, Plain, [U32], [U32, U32, U32, U32];
    Bfrev = 141, "bfrev", Operands, Plain, [U32], [U32];
    Swapc = 142, "swapc", Operands, Plain, [Bits, Bits], [U32, Bits, Bits];
    DclStream = 143, "dcl_stream", Declaration, Declaration, [], [];
    DclFunctionBody = 144, "dcl_function_body", Declaration, Declaration, [], [];
    DclFunctionTable = 145, "dcl_function_table", Declaration, Declaration, [], [];
    DclInterface = 146, "dcl_interface", Declaration, Declaration, [], [];
    DclInputControlPointCount = 147, "dcl_input_control_point_count", Declaration, Declaration, [], [];
    DclOutputControlPointCount = 148, "dcl_output_control_point_count", Declaration, Declaration, [], [];
    DclTessDomain = 149, "dcl_tessellator_domain", Declaration, Declaration, [], [];
    DclTessPartitioning = 150, "dcl_tessellator_partitioning", Declaration, Declaration, [], [];
    DclTessOutputPrimitive = 151, "dcl_tessellator_output_primitive", Declaration, Declaration, [], [];
    DclHsMaxTessFactor = 152, "dcl_hs_max_tessfactor", Declaration, Declaration, [], [];
    DclHsForkPhaseInstanceCount = 153, "dcl_hs_fork_phase_instance_count", Declaration, Declaration, [], [];
    DclHsJoinPhaseInstanceCount = 154, "dcl_hs_join_phase_instance_count", Declaration, Declaration, [], [];
    DclThreadGroup = 155, "dcl_thread_group", Declaration, Declaration, [], [];
    DclUavTyped = 156, "dcl_uav_typed", Declaration, Declaration, [], [];
    DclUavRaw = 157, "dcl_uav_raw", Declaration, Declaration, [], [];
    DclUavStructured = 158, "dcl_uav_structured", Declaration, Declaration, [], [];
    DclTgsmRaw = 159, "dcl_tgsm_raw", Declaration, Declaration, [], [];
    DclTgsmStructured = 160, "dcl_tgsm_structured", Declaration, Declaration, [], [];
    DclResourceRaw = 161, "dcl_resource_raw", Declaration, Declaration, [], [];
    DclResourceStructured = 162, "dcl_resource_structured", Declaration, Declaration, [], [];
    LdUavTyped = 163, "ld_uav_typed", Operands, Plain, [Bits], [U32, None];
    StoreUavTyped = 164, "store_uav_typed", Operands, Plain, [Bits], [U32, Bits];
    LdRaw = 165, "ld_raw", Operands, Plain, [Bits], [U32, None];
    StoreRaw = 166, "store_raw", Operands, Plain, [Bits], [U32, Bits];
    LdStructured = 167, "ld_structured", Operands, Plain, [Bits], [U32, U32, None];
    StoreStructured = 168, "store_structured", Operands, Plain, [Bits], [U32, U32, Bits];
    AtomicAnd = 169, "atomic_and", Operands, Plain, [Bits], [U32, U32];
    AtomicOr = 170, "atomic_or", Operands, Plain, [Bits], [U32, U32];
    AtomicXor = 171, "atomic_xor", Operands, Plain, [Bits], [U32, U32];
    AtomicCmpStore = 172, "atomic_cmp_store", Operands, Plain, [Bits], [U32, Bits, Bits];
    AtomicIadd = 173, "atomic_iadd", Operands, Plain, [Bits], [U32, I32];
    AtomicImax = 174, "atomic_imax", Operands, Plain, [Bits], [U32, I32];
    AtomicImin = 175, "atomic_imin", Operands, Plain, [Bits], [U32, I32];
    AtomicUmax = 176, "atomic_umax", Operands, Plain, [Bits], [U32, U32];
    AtomicUmin = 177, "atomic_umin", Operands, Plain, [Bits], [U32, U32];
    ImmAtomicAlloc = 178, "imm_atomic_alloc", Operands, Plain, [U32], [None];
    ImmAtomicConsume = 179, "imm_atomic_consume", Operands, Plain, [U32], [None];
    ImmAtomicIadd = 180, "imm_atomic_iadd", Operands, Plain, [I32, Bits], [U32, I32];
    ImmAtomicAnd = 181, "imm_atomic_and", Operands, Plain, [U32, Bits], [U32, U32];
    ImmAtomicOr = 182, "imm_atomic_or", Operands, Plain, [U32, Bits], [U32, U32];
    ImmAtomicXor = 183, "imm_atomic_xor", Operands, Plain, [U32, Bits], [U32, U32];
    ImmAtomicExch = 184, "imm_atomic_exch", Operands, Plain, [Bits, Bits], [U32, Bits];
    ImmAtomicCmpExch = 185, "imm_atomic_cmp_exch", Operands, Plain, [Bits, Bits], [U32, Bits, Bits];
    ImmAtomicImax = 186, "imm_atomic_imax", Operands, Plain, [I32, Bits], [U32, I32];
    ImmAtomicImin = 187, "imm_atomic_imin", Operands, Plain, [I32, Bits], [U32, I32];
    ImmAtomicUmax = 188, "imm_atomic_umax", Operands, Plain, [U32, Bits], [U32, U32];
    ImmAtomicUmin = 189, "imm_atomic_umin", Operands, Plain, [U32, Bits], [U32, U32];
    Sync = 190, "sync", Operands, Sync, [], [];
    Dadd = 191, "dadd", Operands, Plain, [F64], [F64, F64];
    Dmax = 192, "dmax", Operands, Plain, [F64], [F64, F64];
    Dmin = 193, "dmin", Operands, Plain, [F64], [F64, F64];
    Dmul = 194, "dmul", Operands, Plain, [F64], [F64, F64];
    Deq = 195, "deq", Operands, Plain, [U32], [F64, F64];
    Dge = 196, "dge", Operands, Plain, [U32], [F64, F64];
    Dlt = 197, "dlt", Operands, Plain, [U32], [F64, F64];
    Dne = 198, "dne", Operands, Plain, [U32], [F64, F64];
    Dmov = 199, "dmov", Operands, Plain, [F64], [F64];
    Dmovc = 200, "dmovc", Operands, Plain, [F64], [U32, F64, F64];
    Dtof = 201, "dtof", Operands, Plain, [F32], [F64];
    Ftod = 202, "ftod", Operands, Plain, [F64], [F32];
    EvalSnapped = 203, "eval_snapped", Operands, Plain, [F32], [F32, I32];
    EvalSampleIndex = 204, "eval_sample_index", Operands, Plain, [F32], [F32, I32];
    EvalCentroid = 205, "eval_centroid", Operands, Plain, [F32], [F32];
    DclGsInstanceCount = 206, "dcl_gsinstances", Declaration, Declaration, [], [];
    Abort = 207, "abort", Operands, Plain, [], [];
    DebugBreak = 208, "debug_break", Operands, Plain, [], [];
    Ddiv = 210, "ddiv", Operands, Plain, [F64], [F64, F64];
    Dfma = 211, "dfma", Operands, Plain, [F64], [F64, F64, F64];
    Drcp = 212, "drcp", Operands, Plain, [F64], [F64];
    Msad = 213, "msad", Operands, Plain, [U32], [U32, U32, U32];
    Dtoi = 214, "dtoi", Operands, Plain, [I32], [F64];
    Dtou = 215, "dtou", Operands, Plain, [U32], [F64];
    Itod = 216, "itod", Operands, Plain, [F64], [I32];
    Utod = 217, "utod", Operands, Plain, [F64], [U32];
    Gather4S = 219, "gather4_s", Operands, Plain, [Bits, U32], [F32, None, None];
    Gather4CS = 220, "gather4_c_s", Operands, Plain, [Bits, U32], [F32, None, None, F32];
    Gather4PoS = 221, "gather4_po_s", Operands, Plain, [Bits, U32], [F32, I32, None, None];
    Gather4PoCS = 222, "gather4_po_c_s", Operands, Plain, [Bits, U32], [F32, I32, None, None, F32];
    LdS = 223, "ld_s", Operands, Plain, [Bits, U32], [I32, None];
    LdMsS = 224, "ldms_s", Operands, Plain, [Bits, U32], [I32, None, I32];
    LdUavTypedS = 225, "ld_uav_typed_s", Operands, Plain, [Bits, U32], [U32, None];
    LdRawS = 226, "ld_raw_s", Operands, Plain, [Bits, U32], [U32, None];
    LdStructuredS = 227, "ld_structured_s", Operands, Plain, [Bits, U32], [U32, U32, None];
    SampleLS = 228, "sample_l_s", Operands, Plain, [Bits, U32], [F32, None, None, F32];
    SampleCLzS = 229, "sample_c_lz_s", Operands, Plain, [Bits, U32], [F32, None, None, F32];
    SampleClS = 230, "sample_cl_s", Operands, Plain, [Bits, U32], [F32, None, None, F32];
    SampleBClS = 231, "sample_b_cl_s", Operands, Plain, [Bits, U32], [F32, None, None, F32, F32];
    SampleDClS = 232, "sample_d_cl_s", Operands, Plain, [Bits, U32], [F32, None, None, F32, F32, F32];
    SampleCClS = 233, "sample_c_cl_s", Operands, Plain, [Bits, U32], [F32, None, None, F32, F32];
    CheckAccessFullyMapped = 234, "check_access_fully_mapped", Operands, Plain, [U32], [U32];
}

/// Lookup from opcode code to table row, built once from [`OPCODES`].
const LOOKUP_SIZE: usize = 235;

/// Row of each opcode code in the table (`u8::MAX` for reserved codes), built at compile
/// time: a lazily built table costs an atomic check on every lookup.
const fn build_lookup() -> [u8; LOOKUP_SIZE] {
    let mut lookup = [u8::MAX; LOOKUP_SIZE];
    let mut row = 0;
    while row < ROWS.len() {
        lookup[ROWS[row].opcode as usize] = row as u8;
        row += 1;
    }
    lookup
}

/// The opcode code → table row map.
static LOOKUP: [u8; LOOKUP_SIZE] = build_lookup();

/// Names other listings give opcodes, read as the table's names: the names this project
/// printed before it followed fxc (`ld2dms`, `emitthencut`) and vkd3d-compiler's `d3d-asm`
/// spellings (`dcl_constantBuffer`, `breakp`, `retp`, `dsx`, `sample_info`, …).
pub const ALIASES: &[(&str, Opcode)] = &[
    ("ld2dms", Opcode::LdMs),
    ("ld2dms_s", Opcode::LdMsS),
    ("emitthencut", Opcode::EmitThenCut),
    ("emitthencut_stream", Opcode::EmitThenCutStream),
    ("dcl_constantBuffer", Opcode::DclConstantBuffer),
    ("dcl_index_range", Opcode::DclIndexRange),
    ("breakp", Opcode::Breakc),
    ("retp", Opcode::Retc),
    ("dsx", Opcode::DerivRtx),
    ("dsy", Opcode::DerivRty),
    ("sample_info", Opcode::SampleInfo),
    ("sample_pos", Opcode::SamplePos),
];

impl Opcode {
    /// The opcode for a code, or `None` for an unknown or reserved code.
    pub fn from_code(code: u32) -> Option<Opcode> {
        let row = *LOOKUP.get(code as usize)?;
        OPCODES.get(row as usize).map(|info| info.opcode)
    }

    /// The opcode's table row.
    pub fn info(self) -> &'static OpcodeInfo {
        // Every variant has a row: the enum and the table come from one macro invocation.
        let row = LOOKUP[self as usize] as usize;
        &OPCODES[row]
    }

    /// The assembly name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode whose assembly name is `name`: fxc's name (the table's), or another
    /// name the assembler reads for it (see [`ALIASES`]).
    pub fn from_name(name: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|i| i.name == name)
            .map(|i| i.opcode)
            .or_else(|| ALIASES.iter().find(|(n, _)| *n == name).map(|&(_, op)| op))
    }

    /// True for declarations (including custom-data blocks).
    pub fn is_declaration(self) -> bool {
        matches!(self.info().layout, Layout::Declaration | Layout::CustomData)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_code_order_with_unique_names() {
        let mut last = None;
        for info in OPCODES {
            if let Some(prev) = last {
                assert!(info.opcode as u16 > prev, "{} is out of order", info.name);
            }
            last = Some(info.opcode as u16);
            assert_eq!(
                Opcode::from_name(info.name),
                Some(info.opcode),
                "{}",
                info.name
            );
            assert_eq!(Opcode::from_code(info.opcode as u32), Some(info.opcode));
        }
        // Codes 0–234 minus the four reserved ones (107, 112, 209, 218).
        assert_eq!(OPCODES.len(), 231);
    }

    #[test]
    fn reserved_and_unknown_codes_have_no_opcode() {
        for code in [107, 112, 209, 218, 235, 0x7ff, u32::MAX] {
            assert_eq!(Opcode::from_code(code), None, "code {code}");
        }
    }

    #[test]
    fn known_codes_match_the_format() {
        assert_eq!(Opcode::Dmovc as u16, 200);
        assert_eq!(Opcode::ImmAtomicCmpExch as u16, 185);
        assert_eq!(Opcode::ImmAtomicAnd as u16, 181);
        assert_eq!(Opcode::StoreRaw as u16, 166);
        assert_eq!(Opcode::CheckAccessFullyMapped as u16, 0xea);
        assert_eq!(Opcode::Ddiv as u16, 0xd2);
    }
}
