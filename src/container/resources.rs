//! The types of the resource definitions chunk (RDEF): bindings, constant buffers,
//! variables and their types.

raw_enum! {
    /// The program kind stored in the high 16 bits of RDEF's target version.
    ProgramType: u16 {
        /// Pixel shader.
        Pixel = 0xffff,
        /// Vertex shader.
        Vertex = 0xfffe,
        /// Geometry shader (`"GS"`).
        Geometry = 0x4753,
        /// Hull shader (`"HS"`).
        Hull = 0x4853,
        /// Domain shader (`"DS"`).
        Domain = 0x4453,
        /// Compute shader (`"CS"`).
        Compute = 0x4353,
    }
}

raw_enum! {
    /// What a binding binds (`D3D_SHADER_INPUT_TYPE`).
    ShaderInputType: u32 {
        /// Constant buffer.
        CBuffer = 0,
        /// Texture buffer.
        TBuffer = 1,
        /// Texture (SRV).
        Texture = 2,
        /// Sampler.
        Sampler = 3,
        /// Typed read/write UAV.
        UavRwTyped = 4,
        /// Structured buffer (SRV).
        Structured = 5,
        /// Read/write structured buffer UAV.
        UavRwStructured = 6,
        /// Byte-address buffer (SRV).
        ByteAddress = 7,
        /// Read/write byte-address buffer UAV.
        UavRwByteAddress = 8,
        /// Append structured buffer UAV.
        UavAppendStructured = 9,
        /// Consume structured buffer UAV.
        UavConsumeStructured = 10,
        /// Read/write structured buffer UAV with a counter.
        UavRwStructuredWithCounter = 11,
    }
}

impl ShaderInputType {
    /// Whether this binding is an unordered access view.
    pub fn is_uav(self) -> bool {
        matches!(
            self,
            Self::UavRwTyped
                | Self::UavRwStructured
                | Self::UavRwByteAddress
                | Self::UavAppendStructured
                | Self::UavConsumeStructured
                | Self::UavRwStructuredWithCounter
        )
    }
}

raw_enum! {
    /// The element type a texture returns (`D3D_RESOURCE_RETURN_TYPE`); 0 when not a texture.
    ResourceReturnType: u32 {
        /// Not applicable.
        None = 0,
        /// Unsigned normalized.
        Unorm = 1,
        /// Signed normalized.
        Snorm = 2,
        /// Signed integer.
        Sint = 3,
        /// Unsigned integer.
        Uint = 4,
        /// Float.
        Float = 5,
        /// Mixed (structured and raw buffers).
        Mixed = 6,
        /// Double.
        Double = 7,
        /// Continued (the previous component's type continues).
        Continued = 8,
    }
}

raw_enum! {
    /// A binding's resource dimension (`D3D_SRV_DIMENSION`).
    ResourceDimension: u32 {
        /// Unknown or not applicable.
        Unknown = 0,
        /// Buffer.
        Buffer = 1,
        /// 1D texture.
        Texture1D = 2,
        /// 1D texture array.
        Texture1DArray = 3,
        /// 2D texture.
        Texture2D = 4,
        /// 2D texture array.
        Texture2DArray = 5,
        /// Multisampled 2D texture.
        Texture2DMs = 6,
        /// Multisampled 2D texture array.
        Texture2DMsArray = 7,
        /// 3D texture.
        Texture3D = 8,
        /// Cube texture.
        TextureCube = 9,
        /// Cube texture array.
        TextureCubeArray = 10,
        /// Extended (raw) buffer.
        BufferEx = 11,
    }
}

raw_enum! {
    /// What a constant buffer record describes (`D3D_CBUFFER_TYPE`).
    ConstantBufferType: u32 {
        /// `cbuffer`.
        CBuffer = 0,
        /// `tbuffer`.
        TBuffer = 1,
        /// Interface pointers.
        InterfacePointers = 2,
        /// Layout of a structured buffer's element (`Resource bind info for …`).
        ResourceBindInfo = 3,
    }
}

raw_enum! {
    /// A type's class (`D3D_SHADER_VARIABLE_CLASS`).
    VariableClass: u16 {
        /// Scalar.
        Scalar = 0,
        /// Vector.
        Vector = 1,
        /// Row-major matrix.
        MatrixRows = 2,
        /// Column-major matrix.
        MatrixColumns = 3,
        /// Object (texture, sampler, …).
        Object = 4,
        /// Structure.
        Struct = 5,
        /// Interface class.
        InterfaceClass = 6,
        /// Interface pointer.
        InterfacePointer = 7,
    }
}

raw_enum! {
    /// A type's base type (`D3D_SHADER_VARIABLE_TYPE`).
    VariableType: u16 {
        /// `void` (used by structures).
        Void = 0,
        /// `bool`.
        Bool = 1,
        /// `int`.
        Int = 2,
        /// `float`.
        Float = 3,
        /// `string`.
        String = 4,
        /// `texture`.
        Texture = 5,
        /// `Texture1D`.
        Texture1D = 6,
        /// `Texture2D`.
        Texture2D = 7,
        /// `Texture3D`.
        Texture3D = 8,
        /// `TextureCube`.
        TextureCube = 9,
        /// `sampler`.
        Sampler = 10,
        /// `sampler1D`.
        Sampler1D = 11,
        /// `sampler2D`.
        Sampler2D = 12,
        /// `sampler3D`.
        Sampler3D = 13,
        /// `samplerCUBE`.
        SamplerCube = 14,
        /// Pixel shader object.
        PixelShader = 15,
        /// Vertex shader object.
        VertexShader = 16,
        /// Pixel fragment.
        PixelFragment = 17,
        /// Vertex fragment.
        VertexFragment = 18,
        /// `uint`.
        Uint = 19,
        /// `uint8`.
        Uint8 = 20,
        /// Geometry shader object.
        GeometryShader = 21,
        /// Rasterizer state.
        Rasterizer = 22,
        /// Depth-stencil state.
        DepthStencil = 23,
        /// Blend state.
        Blend = 24,
        /// `Buffer`.
        Buffer = 25,
        /// `cbuffer`.
        CBuffer = 26,
        /// `tbuffer`.
        TBuffer = 27,
        /// `Texture1DArray`.
        Texture1DArray = 28,
        /// `Texture2DArray`.
        Texture2DArray = 29,
        /// Render target view.
        RenderTargetView = 30,
        /// Depth-stencil view.
        DepthStencilView = 31,
        /// `Texture2DMS`.
        Texture2DMs = 32,
        /// `Texture2DMSArray`.
        Texture2DMsArray = 33,
        /// `TextureCubeArray`.
        TextureCubeArray = 34,
        /// Hull shader object.
        HullShader = 35,
        /// Domain shader object.
        DomainShader = 36,
        /// Interface pointer.
        InterfacePointer = 37,
        /// Compute shader object.
        ComputeShader = 38,
        /// `double`.
        Double = 39,
        /// `RWTexture1D`.
        RwTexture1D = 40,
        /// `RWTexture1DArray`.
        RwTexture1DArray = 41,
        /// `RWTexture2D`.
        RwTexture2D = 42,
        /// `RWTexture2DArray`.
        RwTexture2DArray = 43,
        /// `RWTexture3D`.
        RwTexture3D = 44,
        /// `RWBuffer`.
        RwBuffer = 45,
        /// `ByteAddressBuffer`.
        ByteAddressBuffer = 46,
        /// `RWByteAddressBuffer`.
        RwByteAddressBuffer = 47,
        /// `StructuredBuffer`.
        StructuredBuffer = 48,
        /// `RWStructuredBuffer`.
        RwStructuredBuffer = 49,
        /// `AppendStructuredBuffer`.
        AppendStructuredBuffer = 50,
        /// `ConsumeStructuredBuffer`.
        ConsumeStructuredBuffer = 51,
        /// `min8float`.
        Min8Float = 52,
        /// `min10float`.
        Min10Float = 53,
        /// `min16float`.
        Min16Float = 54,
        /// `min12int`.
        Min12Int = 55,
        /// `min16int`.
        Min16Int = 56,
        /// `min16uint`.
        Min16Uint = 57,
    }
}

impl VariableType {
    /// The HLSL spelling of a numeric base type, or `None` for other types.
    pub fn hlsl_name(self) -> Option<&'static str> {
        Some(match self {
            Self::Void => "void",
            Self::Bool => "bool",
            Self::Int => "int",
            Self::Float => "float",
            Self::Uint => "uint",
            Self::Uint8 => "uint8",
            Self::Double => "double",
            Self::Min8Float => "min8float",
            Self::Min10Float => "min10float",
            Self::Min16Float => "min16float",
            Self::Min12Int => "min12int",
            Self::Min16Int => "min16int",
            Self::Min16Uint => "min16uint",
            _ => return None,
        })
    }
}

/// The RD11 sub-header that follows the RDEF header for shader model 5 and later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rd11Header {
    /// The magic: `RD11` for 5.0, the bytes `13 13 44 25` for 5.1.
    pub magic: [u8; 4],
    /// Size of the RDEF header including this sub-header (60).
    pub header_size: u32,
    /// Size of a constant buffer record (24).
    pub constant_buffer_size: u32,
    /// Size of a binding record (32, or 40 with space and ID).
    pub binding_size: u32,
    /// Size of a variable record (40).
    pub variable_size: u32,
    /// Size of a type record (36).
    pub type_size: u32,
    /// Size of a structure member record (12).
    pub member_size: u32,
    /// Number of interface slots.
    pub interface_slot_count: u32,
}

/// One resource binding (`D3D11_SHADER_INPUT_BIND_DESC` / D3D12's with space and ID).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceBinding {
    /// Name.
    pub name: String,
    /// What is bound.
    pub input_type: ShaderInputType,
    /// Texture return type.
    pub return_type: ResourceReturnType,
    /// Dimension.
    pub dimension: ResourceDimension,
    /// Sample count (or structure stride for structured buffers, as fxc stores it).
    pub sample_count: u32,
    /// First register.
    pub bind_point: u32,
    /// Number of registers (0 means unbounded).
    pub bind_count: u32,
    /// `D3D_SHADER_INPUT_FLAGS` (bits 2–3: component count − 1 for textures).
    pub flags: u32,
    /// Register space (0 before shader model 5.1).
    pub space: u32,
    /// Range ID (equal to `bind_point` before shader model 5.1).
    pub id: u32,
}

impl ResourceBinding {
    /// Flag bit: the register was assigned explicitly (`D3D_SIF_USERPACKED`).
    pub const FLAG_USER_PACKED: u32 = 0x1;
    /// Flag bit: a comparison sampler (`D3D_SIF_COMPARISON_SAMPLER`).
    pub const FLAG_COMPARISON_SAMPLER: u32 = 0x2;
    /// Flag bits 2–3: a texture's component count minus one (`D3D_SIF_TEXTURE_COMPONENTS`).
    pub const FLAG_COMPONENTS: u32 = 0xc;
}

/// A type of a constant-buffer variable or structure member.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShaderType {
    /// Byte offset of the type record in the RDEF chunk (identifies shared types).
    pub record_offset: u32,
    /// Class.
    pub class: VariableClass,
    /// Base type.
    pub base_type: VariableType,
    /// Rows.
    pub rows: u16,
    /// Columns.
    pub columns: u16,
    /// Array elements (0 when not an array).
    pub elements: u16,
    /// Structure members, in stored order.
    pub members: Vec<TypeMember>,
    /// The type's name (shader model 5 records only; `None` when absent).
    pub name: Option<String>,
}

/// A member of a structure type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TypeMember {
    /// Member name.
    pub name: String,
    /// Byte offset within the structure.
    pub offset: u32,
    /// Member type.
    pub ty: ShaderType,
}

/// A variable of a constant buffer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Variable {
    /// Name.
    pub name: String,
    /// Byte offset in the buffer.
    pub start_offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_VARIABLE_FLAGS` (0x2: used).
    pub flags: u32,
    /// Type.
    pub ty: ShaderType,
    /// Default value bytes, when the record has one.
    pub default_value: Option<Vec<u8>>,
    /// First texture slot (`u32::MAX` when none or before shader model 5).
    pub texture_start: u32,
    /// Number of texture slots.
    pub texture_size: u32,
    /// First sampler slot (`u32::MAX` when none or before shader model 5).
    pub sampler_start: u32,
    /// Number of sampler slots.
    pub sampler_size: u32,
}

impl Variable {
    /// Flag bit: the variable is used by the shader.
    pub const FLAG_USED: u32 = 0x2;
}

/// A constant buffer (or tbuffer, or structured-buffer layout) and its variables.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConstantBuffer {
    /// Name.
    pub name: String,
    /// Variables in stored order.
    pub variables: Vec<Variable>,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_CBUFFER_FLAGS`.
    pub flags: u32,
    /// What the record describes.
    pub kind: ConstantBufferType,
}

/// The parsed RDEF chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceDefinitions {
    /// Target major version (e.g. 5).
    pub major: u8,
    /// Target minor version (e.g. 1).
    pub minor: u8,
    /// Program kind.
    pub program_type: ProgramType,
    /// Compile flags.
    pub flags: u32,
    /// The creator string, e.g. `Microsoft (R) HLSL Shader Compiler 10.1`.
    pub creator: String,
    /// The RD11 sub-header (shader model 5 and later).
    pub rd11: Option<Rd11Header>,
    /// Whether binding records carry a register space and ID (40-byte records, SM 5.1).
    pub has_spaces: bool,
    /// Constant buffers in stored order.
    pub constant_buffers: Vec<ConstantBuffer>,
    /// Resource bindings in stored order.
    pub bindings: Vec<ResourceBinding>,
}
