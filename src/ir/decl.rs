//! Declarations and the enumerations they use.

use super::{DataRange, OperandId};

/// Defines a `u32`-coded enumeration with its text names: `from_code`, `code` and `name`;
/// `=> "name" | "other"` adds names `from_name` also reads (vkd3d-compiler's spellings).
macro_rules! coded_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $code:expr => $text:literal $(| $alias:literal)*,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// The value for a format code.
            pub fn from_code(code: u32) -> Option<Self> {
                match code {
                    $($code => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The format code.
            pub fn code(self) -> u32 {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// The name used in assembly text.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value whose assembly name is `text`.
            pub fn from_name(text: &str) -> Option<Self> {
                match text {
                    $($text $(| $alias)* => Some($name::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

coded_enum! {
    /// The dimension of a resource or UAV.
    ResourceDimension {
        /// Unknown.
        Unknown = 0 => "unknown",
        /// Typed buffer.
        Buffer = 1 => "buffer",
        /// 1D texture.
        Texture1D = 2 => "texture1d",
        /// 2D texture.
        Texture2D = 3 => "texture2d",
        /// Multisampled 2D texture.
        Texture2DMS = 4 => "texture2dms",
        /// 3D texture.
        Texture3D = 5 => "texture3d",
        /// Cube texture.
        TextureCube = 6 => "texturecube",
        /// 1D texture array.
        Texture1DArray = 7 => "texture1darray",
        /// 2D texture array.
        Texture2DArray = 8 => "texture2darray",
        /// Multisampled 2D texture array.
        Texture2DMSArray = 9 => "texture2dmsarray",
        /// Cube texture array.
        TextureCubeArray = 10 => "texturecubearray",
        /// Raw (byte address) buffer.
        RawBuffer = 11 => "raw_buffer",
        /// Structured buffer.
        StructuredBuffer = 12 => "structured_buffer",
    }
}

coded_enum! {
    /// The return type of one component of a typed resource.
    ReturnType {
        /// Not given (0; never emitted by compilers, kept so any token decodes).
        None = 0 => "none",
        /// UNORM.
        Unorm = 1 => "unorm",
        /// SNORM.
        Snorm = 2 => "snorm",
        /// Signed integer.
        Sint = 3 => "sint" | "int",
        /// Unsigned integer.
        Uint = 4 => "uint",
        /// Float.
        Float = 5 => "float",
        /// Mixed (raw and structured views).
        Mixed = 6 => "mixed",
        /// Double.
        Double = 7 => "double",
        /// Continuation of a double.
        Continued = 8 => "continued" | "<continued>",
        /// Unused.
        Unused = 9 => "unused" | "<unused>",
    }
}

impl ReturnType {
    /// The name fxc writes in return-type lists: [`ReturnType::name`], with the halves and
    /// gaps of doubles in angle brackets (`(double,<continued>,<unused>,<unused>)`).
    pub fn fxc_name(self) -> &'static str {
        match self {
            ReturnType::Continued => "<continued>",
            ReturnType::Unused => "<unused>",
            other => other.name(),
        }
    }
}

coded_enum! {
    /// The interpolation mode of a pixel-shader input.
    Interpolation {
        /// Not given.
        Undefined = 0 => "",
        /// No interpolation.
        Constant = 1 => "constant",
        /// Perspective-correct.
        Linear = 2 => "linear",
        /// Perspective-correct at the centroid.
        LinearCentroid = 3 => "linear centroid",
        /// Linear without perspective.
        LinearNoPerspective = 4 => "linear noperspective",
        /// Linear without perspective at the centroid.
        LinearNoPerspectiveCentroid = 5 => "linear noperspective centroid",
        /// Perspective-correct per sample.
        LinearSample = 6 => "linear sample",
        /// Linear without perspective per sample.
        LinearNoPerspectiveSample = 7 => "linear noperspective sample",
    }
}

coded_enum! {
    /// A system-value name in an input or output declaration.
    SystemValue {
        /// No system value.
        Undefined = 0 => "undefined",
        /// SV_Position.
        Position = 1 => "position",
        /// SV_ClipDistance.
        ClipDistance = 2 => "clip_distance",
        /// SV_CullDistance.
        CullDistance = 3 => "cull_distance",
        /// SV_RenderTargetArrayIndex.
        RenderTargetArrayIndex = 4 => "rendertarget_array_index" | "render_target_array_index",
        /// SV_ViewportArrayIndex.
        ViewportArrayIndex = 5 => "viewport_array_index",
        /// SV_VertexID.
        VertexId = 6 => "vertex_id",
        /// SV_PrimitiveID.
        PrimitiveId = 7 => "primitive_id",
        /// SV_InstanceID.
        InstanceId = 8 => "instance_id",
        /// SV_IsFrontFace.
        IsFrontFace = 9 => "is_front_face",
        /// SV_SampleIndex.
        SampleIndex = 10 => "sampleIndex" | "sample_index",
        /// Quad edge tess factor u == 0.
        QuadUEq0EdgeTessFactor = 11 => "finalQuadUeq0EdgeTessFactor",
        /// Quad edge tess factor v == 0.
        QuadVEq0EdgeTessFactor = 12 => "finalQuadVeq0EdgeTessFactor",
        /// Quad edge tess factor u == 1.
        QuadUEq1EdgeTessFactor = 13 => "finalQuadUeq1EdgeTessFactor",
        /// Quad edge tess factor v == 1.
        QuadVEq1EdgeTessFactor = 14 => "finalQuadVeq1EdgeTessFactor",
        /// Quad inside tess factor u.
        QuadUInsideTessFactor = 15 => "finalQuadUInsideTessFactor",
        /// Quad inside tess factor v.
        QuadVInsideTessFactor = 16 => "finalQuadVInsideTessFactor",
        /// Triangle edge tess factor u == 0.
        TriUEq0EdgeTessFactor = 17 => "finalTriUeq0EdgeTessFactor",
        /// Triangle edge tess factor v == 0.
        TriVEq0EdgeTessFactor = 18 => "finalTriVeq0EdgeTessFactor",
        /// Triangle edge tess factor w == 0.
        TriWEq0EdgeTessFactor = 19 => "finalTriWeq0EdgeTessFactor",
        /// Triangle inside tess factor.
        TriInsideTessFactor = 20 => "finalTriInsideTessFactor",
        /// Isoline detail tess factor.
        LineDetailTessFactor = 21 => "finalLineDetailTessFactor",
        /// Isoline density tess factor.
        LineDensityTessFactor = 22 => "finalLineDensityTessFactor",
        /// Barycentrics (D3D12).
        Barycentrics = 23 => "barycentrics",
        /// Shading rate (D3D12).
        ShadingRate = 24 => "shadingrate",
        /// Cull primitive (D3D12).
        CullPrimitive = 25 => "cullprimitive",
    }
}

coded_enum! {
    /// The mode of a sampler declaration.
    SamplerMode {
        /// Ordinary sampling.
        Default = 0 => "mode_default",
        /// Comparison sampling.
        Comparison = 1 => "mode_comparison" | "comparisonMode",
        /// Monochrome (D3D9-era text filtering).
        Mono = 2 => "mode_mono",
    }
}

coded_enum! {
    /// A geometry-shader output topology.
    PrimitiveTopology {
        /// Undefined.
        Undefined = 0 => "undefined",
        /// Points.
        PointList = 1 => "pointlist",
        /// Lines.
        LineList = 2 => "linelist",
        /// Line strips.
        LineStrip = 3 => "linestrip",
        /// Triangles.
        TriangleList = 4 => "trianglelist",
        /// Triangle strips.
        TriangleStrip = 5 => "trianglestrip",
        /// Lines with adjacency.
        LineListAdj = 10 => "linelist_adj",
        /// Line strips with adjacency.
        LineStripAdj = 11 => "linestrip_adj",
        /// Triangles with adjacency.
        TriangleListAdj = 12 => "trianglelist_adj",
        /// Triangle strips with adjacency.
        TriangleStripAdj = 13 => "trianglestrip_adj",
    }
}

coded_enum! {
    /// The tessellator domain.
    TessDomain {
        /// Undefined.
        Undefined = 0 => "domain_undefined",
        /// Isolines.
        Isoline = 1 => "domain_isoline",
        /// Triangles.
        Triangle = 2 => "domain_tri",
        /// Quads.
        Quad = 3 => "domain_quad",
    }
}

coded_enum! {
    /// The tessellator partitioning.
    TessPartitioning {
        /// Undefined.
        Undefined = 0 => "partitioning_undefined",
        /// Integer.
        Integer = 1 => "partitioning_integer",
        /// Power of two.
        Pow2 = 2 => "partitioning_pow2",
        /// Fractional odd.
        FractionalOdd = 3 => "partitioning_fractional_odd",
        /// Fractional even.
        FractionalEven = 4 => "partitioning_fractional_even",
    }
}

coded_enum! {
    /// The tessellator output primitive.
    TessOutputPrimitive {
        /// Undefined.
        Undefined = 0 => "output_undefined",
        /// Points.
        Point = 1 => "output_point",
        /// Lines.
        Line = 2 => "output_line",
        /// Clockwise triangles.
        TriangleCw = 3 => "output_triangle_cw",
        /// Counter-clockwise triangles.
        TriangleCcw = 4 => "output_triangle_ccw",
    }
}

coded_enum! {
    /// The class of a custom-data block.
    CustomDataClass {
        /// A comment.
        Comment = 0 => "comment",
        /// Debug information.
        DebugInfo = 1 => "debuginfo",
        /// Opaque data.
        Opaque = 2 => "opaque",
        /// The immediate constant buffer.
        ImmediateConstantBuffer = 3 => "immediateConstantBuffer",
        /// A shader message.
        ShaderMessage = 4 => "shader_message",
        /// D3D9 clip-plane constant mappings.
        ClipPlaneConstantMappings = 5 => "clip_plane_constant_mappings",
    }
}

/// The input primitive of a geometry shader: a code 1–39 (point, line, triangle, with
/// adjacency, or a patch of 1–32 control points).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputPrimitive(pub u32);

impl InputPrimitive {
    /// The name used in assembly text, or `None` for an unknown code.
    pub fn name(self) -> Option<String> {
        Some(match self.0 {
            0 => "undefined".to_string(),
            1 => "point".to_string(),
            2 => "line".to_string(),
            3 => "triangle".to_string(),
            6 => "lineadj".to_string(),
            7 => "triangleadj".to_string(),
            n @ 8..=39 => format!("patch{}", n - 7),
            _ => return None,
        })
    }

    /// The primitive named `text`: fxc's name, or vkd3d-compiler's topology-style name
    /// (`pointlist`, `linelist`, `trianglelist`, `linelist_adj`, `trianglelist_adj`).
    pub fn from_name(text: &str) -> Option<Self> {
        let vkd3d = match text {
            "pointlist" => Some(1),
            "linelist" => Some(2),
            "trianglelist" => Some(3),
            "linelist_adj" => Some(6),
            "trianglelist_adj" => Some(7),
            _ => None,
        };
        vkd3d
            .or_else(|| (0..40).find(|&c| InputPrimitive(c).name().as_deref() == Some(text)))
            .map(InputPrimitive)
    }
}

/// The `dcl_globalFlags` bit `forceEarlyDepthStencil`: a pixel shader's depth and stencil
/// tests run before it.
pub const FORCE_EARLY_DEPTH_STENCIL: u32 = 1 << 13;

/// Global flags of `dcl_globalFlags`, in bit order with their names.
pub const GLOBAL_FLAG_NAMES: [(u32, &str); 9] = [
    (1 << 11, "refactoringAllowed"),
    (1 << 12, "enableDoublePrecisionFloatOps"),
    (FORCE_EARLY_DEPTH_STENCIL, "forceEarlyDepthStencil"),
    (1 << 14, "enableRawAndStructuredBuffers"),
    (1 << 15, "skipOptimization"),
    (1 << 16, "enableMinimumPrecision"),
    (1 << 17, "enable11_1DoubleExtensions"),
    (1 << 18, "enable11_1ShaderExtensions"),
    (1 << 19, "allResourcesBound"),
];

/// A resource range in SM5.1 form: id, bounds and register space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResourceRange {
    /// The range id the program's instructions use (for SM4/5.0: the register number).
    pub id: u32,
    /// The first register of the range.
    pub lower: u32,
    /// The last register of the range (inclusive), or `None` when unbounded.
    pub upper: Option<u32>,
    /// The register space (0 before SM5.1).
    pub space: u32,
}

impl ResourceRange {
    /// The number of registers, or `None` when unbounded.
    pub fn count(&self) -> Option<u64> {
        self.upper
            .map(|u| (u as u64).wrapping_sub(self.lower as u64).wrapping_add(1))
    }
}

/// Access flags of a UAV declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UavFlags {
    /// `globallycoherent` (`_glc`).
    pub globally_coherent: bool,
    /// Rasterizer-ordered view (`_rov`).
    pub rasterizer_ordered: bool,
    /// The UAV has an order-preserving counter (`_opc`, structured only).
    pub counter: bool,
}

/// A declaration, with its operand (the declared register) where it has one.
#[derive(Debug, Clone, PartialEq)]
pub enum Declaration {
    /// `dcl_globalFlags` (the raw flag bits, see [`GLOBAL_FLAG_NAMES`]).
    GlobalFlags(u32),
    /// `dcl_resource_*` (typed SRV).
    Resource {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Dimension.
        dimension: ResourceDimension,
        /// Sample count of multisampled textures.
        sample_count: u32,
        /// Component return types.
        return_type: [ReturnType; 4],
    },
    /// `dcl_resource_raw`.
    ResourceRaw {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
    },
    /// `dcl_resource_structured`.
    ResourceStructured {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Structure stride in bytes.
        stride: u32,
    },
    /// `dcl_uav_typed_*`.
    UavTyped {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Dimension.
        dimension: ResourceDimension,
        /// Component return types.
        return_type: [ReturnType; 4],
        /// Access flags.
        flags: UavFlags,
    },
    /// `dcl_uav_raw`.
    UavRaw {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Access flags.
        flags: UavFlags,
    },
    /// `dcl_uav_structured`.
    UavStructured {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Structure stride in bytes.
        stride: u32,
        /// Access flags.
        flags: UavFlags,
    },
    /// `dcl_constantbuffer`.
    ConstantBuffer {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Size in 16-byte vectors.
        size: u32,
        /// `dynamicIndexed` rather than `immediateIndexed`.
        dynamic: bool,
    },
    /// `dcl_sampler`.
    Sampler {
        /// The declared register.
        operand: OperandId,
        /// The range.
        range: ResourceRange,
        /// Mode.
        mode: SamplerMode,
    },
    /// `dcl_tgsm_raw`.
    TgsmRaw {
        /// The declared `g#` register.
        operand: OperandId,
        /// Size in bytes.
        byte_count: u32,
    },
    /// `dcl_tgsm_structured`.
    TgsmStructured {
        /// The declared `g#` register.
        operand: OperandId,
        /// Structure stride in bytes.
        stride: u32,
        /// Structure count.
        count: u32,
    },
    /// `dcl_input*` and `dcl_output*`.
    Signature {
        /// The declared register.
        operand: OperandId,
        /// The system value, for the `_sgv`/`_siv` forms.
        system_value: Option<SystemValue>,
        /// Interpolation, for pixel-shader inputs.
        interpolation: Option<Interpolation>,
    },
    /// `dcl_indexrange`.
    IndexRange {
        /// The first register of the range.
        operand: OperandId,
        /// Number of registers.
        count: u32,
    },
    /// `dcl_temps`.
    Temps(u32),
    /// `dcl_indexableTemp`.
    IndexableTemp {
        /// The `x#` register.
        register: u32,
        /// Number of elements.
        size: u32,
        /// Components per element.
        components: u32,
    },
    /// `dcl_immediateConstantBuffer` and other custom-data blocks.
    CustomData {
        /// The class of the block.
        class: CustomDataClass,
        /// The block's payload in [`super::Program::data`].
        data: DataRange,
    },
    /// `dcl_outputtopology`.
    GsOutputTopology(PrimitiveTopology),
    /// `dcl_inputprimitive`.
    GsInputPrimitive(InputPrimitive),
    /// `dcl_maxout`.
    MaxOutputVertexCount(u32),
    /// `dcl_gsinstances`.
    GsInstanceCount(u32),
    /// `dcl_stream`.
    Stream(OperandId),
    /// `dcl_input_control_point_count`.
    InputControlPointCount(u32),
    /// `dcl_output_control_point_count`.
    OutputControlPointCount(u32),
    /// `dcl_tessellator_domain`.
    TessDomain(TessDomain),
    /// `dcl_tessellator_partitioning`.
    TessPartitioning(TessPartitioning),
    /// `dcl_tessellator_output_primitive`.
    TessOutputPrimitive(TessOutputPrimitive),
    /// `dcl_hs_max_tessfactor` (float bits).
    HsMaxTessFactor(u32),
    /// `dcl_hs_fork_phase_instance_count`.
    HsForkPhaseInstanceCount(u32),
    /// `dcl_hs_join_phase_instance_count`.
    HsJoinPhaseInstanceCount(u32),
    /// `dcl_thread_group`.
    ThreadGroup([u32; 3]),
    /// `dcl_function_body`.
    FunctionBody(u32),
    /// `dcl_function_table`: the table id and its function bodies.
    FunctionTable {
        /// Table id.
        id: u32,
        /// Function-body ids in [`super::Program::data`].
        bodies: DataRange,
    },
    /// `dcl_interface`.
    Interface {
        /// Interface id.
        id: u32,
        /// Indexed dynamically.
        dynamic: bool,
        /// Expected function-table length (number of call sites).
        table_length: u32,
        /// Number of interfaces in the array.
        array_length: u32,
        /// Function-table ids in [`super::Program::data`].
        tables: DataRange,
    },
}
