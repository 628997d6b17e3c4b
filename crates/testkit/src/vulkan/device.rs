//! Instance, physical device, logical device and compute queue.

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use ash::vk;

use super::VulkanError;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// What the chosen device supports (and what was enabled: every supported item is enabled).
/// Callers use it to skip work the device cannot do, with a reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features {
    /// The device's name.
    pub device_name: String,
    /// The Vulkan version used (the minimum of loader, device and 1.3), packed as by
    /// `VK_MAKE_API_VERSION`.
    pub api_version: u32,
    /// `shaderFloat64`.
    pub shader_float64: bool,
    /// `shaderInt64`.
    pub shader_int64: bool,
    /// `shaderResourceResidency` (sparse residency reads in shaders).
    pub shader_resource_residency: bool,
    /// `shaderResourceMinLod` (the `MinLod` image operand).
    pub shader_resource_min_lod: bool,
    /// `shaderFloat16` (core 1.2).
    pub shader_float16: bool,
    /// `shaderInt16`.
    pub shader_int16: bool,
    /// `shaderDenormPreserveFloat64` (a float-controls property, core 1.2).
    /// `shaderSignedZeroInfNanPreserveFloat32` (Vulkan 1.2 float controls).
    pub signed_zero_inf_nan_preserve_float32: bool,
    /// `shaderSignedZeroInfNanPreserveFloat64`.
    pub signed_zero_inf_nan_preserve_float64: bool,
    pub denorm_preserve_float64: bool,
    /// `shaderDenormPreserveFloat32` (a float-controls property, core 1.2).
    pub denorm_preserve_float32: bool,
    /// `shaderDemoteToHelperInvocation` (core 1.3 or `VK_EXT_shader_demote_to_helper_invocation`).
    pub shader_demote_to_helper_invocation: bool,
    /// `fragmentStoresAndAtomics`.
    pub fragment_stores_and_atomics: bool,
    /// `vertexPipelineStoresAndAtomics`.
    pub vertex_pipeline_stores_and_atomics: bool,
    /// `shaderStorageImageReadWithoutFormat`.
    pub storage_image_read_without_format: bool,
    /// `shaderStorageImageWriteWithoutFormat`.
    pub storage_image_write_without_format: bool,
    /// `robustBufferAccess`.
    pub robust_buffer_access: bool,
    /// `robustImageAccess` (core 1.3).
    pub robust_image_access: bool,
    /// `shaderDrawParameters`.
    pub shader_draw_parameters: bool,
    /// `sampleRateShading`.
    pub sample_rate_shading: bool,
    /// `depthBounds` (the depth-bounds test).
    pub depth_bounds: bool,
    /// `imageCubeArray`.
    pub image_cube_array: bool,
    /// `shaderImageGatherExtended`.
    pub image_gather_extended: bool,
    /// `geometryShader`.
    pub geometry_shader: bool,
    /// `tessellationShader`.
    pub tessellation_shader: bool,
    /// `independentBlend`.
    pub independent_blend: bool,
    /// `dualSrcBlend` (blend factors reading a second pixel-shader color).
    pub dual_src_blend: bool,
    /// `multiViewport`.
    pub multi_viewport: bool,
    /// `shaderClipDistance`.
    pub shader_clip_distance: bool,
    /// `shaderCullDistance`.
    pub shader_cull_distance: bool,
    /// `runtimeDescriptorArray` (core 1.2 descriptor indexing).
    pub runtime_descriptor_array: bool,
    /// `shaderOutputLayer` and `shaderOutputViewportIndex` (core 1.2).
    pub shader_output_layer: bool,
    /// `VK_EXT_transform_feedback` with geometry streams.
    pub transform_feedback: bool,
    /// `transformFeedbackRasterizationStreamSelect`: a stream other than 0 can be rasterized.
    pub rasterization_stream_select: bool,
    /// `VK_EXT_conservative_rasterization` with `fullyCoveredFragmentShaderInputVariable`
    /// (SV_InnerCoverage).
    pub fully_covered_input: bool,
    /// `VK_EXT_shader_stencil_export`.
    pub shader_stencil_export: bool,
    /// `VK_EXT_fragment_shader_interlock` (pixel interlock, ordered).
    pub fragment_shader_interlock: bool,
    /// `shaderSubgroupClock` of `VK_KHR_shader_clock` (`OpReadClockKHR` at subgroup scope).
    pub shader_subgroup_clock: bool,
    /// `VK_LAYER_KHRONOS_validation` is enabled.
    pub validation: bool,
}

impl Features {
    /// The API version as `major.minor`.
    pub fn api_version_string(&self) -> String {
        format!(
            "{}.{}",
            vk::api_version_major(self.api_version),
            vk::api_version_minor(self.api_version)
        )
    }
}

/// Validation messages collected by the debug messenger.
type Messages = Mutex<Vec<String>>;

struct Debug {
    loader: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    // Boxed so that its address (the messenger's user data) stays fixed.
    messages: Box<Messages>,
}

/// A Vulkan instance and device with one compute (and, where the device has one, graphics) queue; create it once and run many
/// dispatches on it. Every Vulkan object is freed on drop.
pub struct Context {
    // Field order matters only for the explicit Drop below; `entry` keeps the loader open.
    _entry: ash::Entry,
    instance: ash::Instance,
    debug: Option<Debug>,
    pub(super) physical: vk::PhysicalDevice,
    pub(super) device: ash::Device,
    pub(super) queue: vk::Queue,
    /// Serialises queue submissions (a `Context` may be shared between threads).
    pub(super) queue_lock: Mutex<()>,
    pub(super) queue_family: u32,
    pub(super) memory: vk::PhysicalDeviceMemoryProperties,
    pub(super) limits: vk::PhysicalDeviceLimits,
    features: Features,
    /// Multisampled images kept between draws ([`super::KeptUse`]).
    pub(super) kept: super::kept::KeptImages,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("features", &self.features)
            .finish_non_exhaustive()
    }
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data, and `user` is the boxed `Messages` that
    // outlives the messenger.
    let text = unsafe { data.as_ref() }
        .and_then(|d| (!d.p_message.is_null()).then(|| unsafe { CStr::from_ptr(d.p_message) }))
        .map(|m| m.to_string_lossy().into_owned())
        .unwrap_or_default();
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        "error"
    } else {
        "warning"
    };
    if let Some(messages) = unsafe { (user as *const Messages).as_ref() } {
        if let Ok(mut list) = messages.lock() {
            list.push(format!("{level}: {text}"));
        }
    }
    vk::FALSE
}

fn validation_requested() -> bool {
    std::env::var("DXBC2SPIRV_VALIDATION").is_ok_and(|v| v == "1")
}

impl Context {
    /// Opens the Vulkan loader, creates an instance (Vulkan 1.3 when available, else 1.2 or
    /// 1.1) and a device on the first physical device (a GPU before a CPU implementation
    /// such as lavapipe) with one queue for compute and graphics, enabling every [`Features`] item it supports.
    ///
    /// The validation layer is enabled when `DXBC2SPIRV_VALIDATION=1`.
    pub fn new() -> Result<Context, VulkanError> {
        Context::with_validation(validation_requested())
    }

    /// [`Context::new`], with `VK_LAYER_KHRONOS_validation` enabled when `validation` is true
    /// (an error when the layer is not installed).
    pub fn with_validation(validation: bool) -> Result<Context, VulkanError> {
        // SAFETY: loading the system's Vulkan loader library; its initialisers are trusted.
        let entry =
            unsafe { ash::Entry::load() }.map_err(|e| VulkanError::NoLoader(e.to_string()))?;
        // SAFETY: a plain query on a loaded entry.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(VulkanError::call("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_1 {
            return Err(VulkanError::NoDevice(
                "the Vulkan loader supports only Vulkan 1.0 (1.1 is needed)".into(),
            ));
        }
        let api = loader_version.min(vk::API_VERSION_1_3);
        let mut layers = Vec::new();
        let mut extensions = Vec::new();
        if validation {
            // SAFETY: a plain query on a loaded entry.
            let available = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(VulkanError::call("vkEnumerateInstanceLayerProperties"))?;
            if !available
                .iter()
                .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
            {
                return Err(VulkanError::Invalid(
                    "DXBC2SPIRV_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed \
                     (apt-get install vulkan-validationlayers)"
                        .into(),
                ));
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"dxbc2spirv")
            .api_version(api);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        // SAFETY: the create info and the arrays it points to live across the call.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(VulkanError::call("vkCreateInstance"))?;
        let debug = if validation {
            match create_messenger(&entry, &instance) {
                Ok(debug) => Some(debug),
                Err(e) => {
                    // SAFETY: the instance has no children yet.
                    unsafe { instance.destroy_instance(None) };
                    return Err(e);
                }
            }
        } else {
            None
        };
        match open_device(&instance, api) {
            Ok(opened) => Ok(Context {
                _entry: entry,
                instance,
                debug,
                physical: opened.physical,
                device: opened.device,
                queue: opened.queue,
                queue_lock: Mutex::new(()),
                queue_family: opened.queue_family,
                memory: opened.memory,
                limits: opened.limits,
                features: Features {
                    validation,
                    ..opened.features
                },
                kept: Default::default(),
            }),
            Err(e) => {
                // SAFETY: the messenger and the instance have no other children.
                unsafe {
                    if let Some(debug) = debug {
                        debug
                            .loader
                            .destroy_debug_utils_messenger(debug.messenger, None);
                    }
                    instance.destroy_instance(None);
                }
                Err(e)
            }
        }
    }

    /// What the device supports (everything supported was enabled).
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// The instance (for format queries in the other files of this module).
    pub(super) fn instance(&self) -> &ash::Instance {
        &self.instance
    }

    /// Takes the validation-layer messages collected so far (empty without validation).
    pub fn take_validation_messages(&self) -> Vec<String> {
        self.debug
            .as_ref()
            .and_then(|d| d.messages.lock().ok().map(|mut m| std::mem::take(&mut *m)))
            .unwrap_or_default()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: every per-dispatch object is freed before its dispatch returns, so the
        // device and instance have no children left but the messenger.
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        self.release_all_kept();
        // SAFETY: as above; the kept images are freed.
        unsafe {
            self.device.destroy_device(None);
            if let Some(debug) = self.debug.take() {
                debug
                    .loader
                    .destroy_debug_utils_messenger(debug.messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

fn create_messenger(entry: &ash::Entry, instance: &ash::Instance) -> Result<Debug, VulkanError> {
    let loader = ash::ext::debug_utils::Instance::new(entry, instance);
    let messages: Box<Messages> = Box::new(Mutex::new(Vec::new()));
    let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(debug_callback))
        .user_data(std::ptr::from_ref::<Messages>(&messages) as *mut c_void);
    // SAFETY: the user data is the boxed list, which lives as long as the messenger.
    let messenger = unsafe { loader.create_debug_utils_messenger(&info, None) }
        .map_err(VulkanError::call("vkCreateDebugUtilsMessengerEXT"))?;
    Ok(Debug {
        loader,
        messenger,
        messages,
    })
}

struct Opened {
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    limits: vk::PhysicalDeviceLimits,
    features: Features,
}

/// Picks a physical device and its compute queue family: discrete GPU, integrated GPU,
/// virtual GPU, then anything else (a CPU implementation), each needing Vulkan 1.1.
fn pick_device(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, u32), VulkanError> {
    // SAFETY: plain queries on a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(VulkanError::call("vkEnumeratePhysicalDevices"))?;
    let rank = |t: vk::PhysicalDeviceType| match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        _ => 3,
    };
    let mut best: Option<(u32, vk::PhysicalDevice, u32)> = None;
    for pd in devices {
        // SAFETY: `pd` comes from this instance.
        let props = unsafe { instance.get_physical_device_properties(pd) };
        if props.api_version < vk::API_VERSION_1_1 {
            continue;
        }
        // SAFETY: as above.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let with = |flags: vk::QueueFlags| {
            families
                .iter()
                .position(|f| f.queue_flags.contains(flags) && f.queue_count > 0)
        };
        let Some(family) = with(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
            .or_else(|| with(vk::QueueFlags::COMPUTE))
            .and_then(|i| u32::try_from(i).ok())
        else {
            continue;
        };
        let r = rank(props.device_type);
        if best.is_none_or(|(b, _, _)| r < b) {
            best = Some((r, pd, family));
        }
    }
    best.map(|(_, pd, family)| (pd, family)).ok_or_else(|| {
        VulkanError::NoDevice(
            "no Vulkan 1.1 physical device with a compute queue (is an ICD such as lavapipe \
             installed?)"
                .into(),
        )
    })
}

fn open_device(instance: &ash::Instance, instance_api: u32) -> Result<Opened, VulkanError> {
    let (physical, queue_family) = pick_device(instance)?;
    // SAFETY: plain queries on a device of this instance.
    let (props, memory, extensions) = unsafe {
        (
            instance.get_physical_device_properties(physical),
            instance.get_physical_device_memory_properties(physical),
            instance
                .enumerate_device_extension_properties(physical)
                .map_err(VulkanError::call("vkEnumerateDeviceExtensionProperties"))?,
        )
    };
    let api = props.api_version.min(instance_api);
    let has_extension = |name: &CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };
    let interlock_ext = has_extension(ash::ext::fragment_shader_interlock::NAME);
    let demote_ext = api < vk::API_VERSION_1_3
        && has_extension(ash::ext::shader_demote_to_helper_invocation::NAME);
    let xfb_ext = has_extension(ash::ext::transform_feedback::NAME);
    let stencil_export_ext = has_extension(ash::ext::shader_stencil_export::NAME);
    let conservative_ext = has_extension(ash::ext::conservative_rasterization::NAME);
    let clock_ext = has_extension(ash::khr::shader_clock::NAME);

    // Query what is supported; everything supported is enabled.
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut draw = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
    let mut demote = vk::PhysicalDeviceShaderDemoteToHelperInvocationFeaturesEXT::default();
    let mut interlock = vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT::default();
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default();
    let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
    let core = {
        let mut query = vk::PhysicalDeviceFeatures2::default();
        if api >= vk::API_VERSION_1_2 {
            query = query.push_next(&mut v11).push_next(&mut v12);
        } else {
            query = query.push_next(&mut draw);
        }
        if api >= vk::API_VERSION_1_3 {
            query = query.push_next(&mut v13);
        }
        if demote_ext {
            query = query.push_next(&mut demote);
        }
        if interlock_ext {
            query = query.push_next(&mut interlock);
        }
        if xfb_ext {
            query = query.push_next(&mut xfb);
        }
        if clock_ext {
            query = query.push_next(&mut clock);
        }
        // SAFETY: the chain holds only structures this device version or its extensions know.
        unsafe { instance.get_physical_device_features2(physical, &mut query) };
        query.features
    };
    let on = |b: vk::Bool32| b == vk::TRUE;
    let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
    if api >= vk::API_VERSION_1_2 {
        let mut query = vk::PhysicalDeviceProperties2::default().push_next(&mut float_controls);
        // SAFETY: the chain holds a structure this device version knows.
        unsafe { instance.get_physical_device_properties2(physical, &mut query) };
    }
    let mut xfb_props = vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
    if xfb_ext {
        let mut query = vk::PhysicalDeviceProperties2::default().push_next(&mut xfb_props);
        // SAFETY: the device has the extension that defines the chained structure.
        unsafe { instance.get_physical_device_properties2(physical, &mut query) };
    }
    let features = Features {
        denorm_preserve_float64: on(float_controls.shader_denorm_preserve_float64),
        denorm_preserve_float32: on(float_controls.shader_denorm_preserve_float32),
        signed_zero_inf_nan_preserve_float32: on(
            float_controls.shader_signed_zero_inf_nan_preserve_float32
        ),
        signed_zero_inf_nan_preserve_float64: on(
            float_controls.shader_signed_zero_inf_nan_preserve_float64
        ),
        device_name: props
            .device_name_as_c_str()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        api_version: api,
        shader_float64: on(core.shader_float64),
        shader_int64: on(core.shader_int64),
        shader_resource_residency: on(core.shader_resource_residency),
        shader_resource_min_lod: on(core.shader_resource_min_lod),
        shader_float16: on(v12.shader_float16),
        shader_int16: on(core.shader_int16),
        shader_demote_to_helper_invocation: on(v13.shader_demote_to_helper_invocation)
            || on(demote.shader_demote_to_helper_invocation),
        fragment_stores_and_atomics: on(core.fragment_stores_and_atomics),
        vertex_pipeline_stores_and_atomics: on(core.vertex_pipeline_stores_and_atomics),
        storage_image_read_without_format: on(core.shader_storage_image_read_without_format),
        storage_image_write_without_format: on(core.shader_storage_image_write_without_format),
        robust_buffer_access: on(core.robust_buffer_access),
        robust_image_access: on(v13.robust_image_access),
        shader_draw_parameters: on(v11.shader_draw_parameters) || on(draw.shader_draw_parameters),
        sample_rate_shading: on(core.sample_rate_shading),
        depth_bounds: on(core.depth_bounds),
        image_cube_array: on(core.image_cube_array),
        image_gather_extended: on(core.shader_image_gather_extended),
        geometry_shader: on(core.geometry_shader),
        tessellation_shader: on(core.tessellation_shader),
        independent_blend: on(core.independent_blend),
        dual_src_blend: on(core.dual_src_blend),
        multi_viewport: on(core.multi_viewport),
        shader_clip_distance: on(core.shader_clip_distance),
        shader_cull_distance: on(core.shader_cull_distance),
        runtime_descriptor_array: on(v12.runtime_descriptor_array),
        shader_output_layer: on(v12.shader_output_layer) && on(v12.shader_output_viewport_index),
        transform_feedback: on(xfb.transform_feedback) && on(xfb.geometry_streams),
        rasterization_stream_select: on(xfb.transform_feedback)
            && on(xfb_props.transform_feedback_rasterization_stream_select),
        shader_stencil_export: stencil_export_ext,
        fully_covered_input: conservative_ext && fully_covered_input(instance, physical),
        fragment_shader_interlock: on(interlock.fragment_shader_pixel_interlock),
        shader_subgroup_clock: on(clock.shader_subgroup_clock),
        validation: false,
    };

    // Enable everything that is supported: copies of the queried structures, re-chained.
    let mut e11 = v11;
    e11.p_next = std::ptr::null_mut();
    let mut e12 = v12;
    e12.p_next = std::ptr::null_mut();
    let mut e13 = v13;
    e13.p_next = std::ptr::null_mut();
    let mut e_draw = draw;
    e_draw.p_next = std::ptr::null_mut();
    let mut e_demote = demote;
    e_demote.p_next = std::ptr::null_mut();
    let mut e_interlock = interlock;
    e_interlock.p_next = std::ptr::null_mut();
    let mut e_xfb = xfb;
    e_xfb.p_next = std::ptr::null_mut();
    let mut e_clock = clock;
    e_clock.p_next = std::ptr::null_mut();
    // The one supported feature left off: with shaderTessellationAndGeometryPointSize a
    // geometry shader that outputs points must write PointSize, which D3D does not have
    // (its points are one pixel, Vulkan's size without the feature).
    let core = vk::PhysicalDeviceFeatures {
        shader_tessellation_and_geometry_point_size: vk::FALSE,
        ..core
    };
    let mut enable = vk::PhysicalDeviceFeatures2::default().features(core);
    let mut device_extensions = Vec::new();
    if api >= vk::API_VERSION_1_2 {
        enable = enable.push_next(&mut e11).push_next(&mut e12);
    } else {
        enable = enable.push_next(&mut e_draw);
    }
    if api >= vk::API_VERSION_1_3 {
        enable = enable.push_next(&mut e13);
    }
    if demote_ext {
        enable = enable.push_next(&mut e_demote);
        device_extensions.push(ash::ext::shader_demote_to_helper_invocation::NAME.as_ptr());
    }
    if interlock_ext {
        enable = enable.push_next(&mut e_interlock);
        device_extensions.push(ash::ext::fragment_shader_interlock::NAME.as_ptr());
    }
    if xfb_ext {
        enable = enable.push_next(&mut e_xfb);
        device_extensions.push(ash::ext::transform_feedback::NAME.as_ptr());
    }
    if clock_ext {
        enable = enable.push_next(&mut e_clock);
        device_extensions.push(ash::khr::shader_clock::NAME.as_ptr());
    }
    if stencil_export_ext {
        device_extensions.push(ash::ext::shader_stencil_export::NAME.as_ptr());
    }
    if conservative_ext {
        device_extensions.push(ash::ext::conservative_rasterization::NAME.as_ptr());
    }
    let priorities = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&device_extensions)
        .push_next(&mut enable);
    // SAFETY: the create info and everything it points to live across the call.
    let device = unsafe { instance.create_device(physical, &info, None) }
        .map_err(VulkanError::call("vkCreateDevice"))?;
    // SAFETY: the queue family was created with one queue.
    let queue = unsafe { device.get_device_queue(queue_family, 0) };
    Ok(Opened {
        physical,
        device,
        queue,
        queue_family,
        memory,
        limits: props.limits,
        features,
    })
}

/// Whether the device's conservative rasterization offers the `FullyCoveredEXT` input.
fn fully_covered_input(instance: &ash::Instance, physical: vk::PhysicalDevice) -> bool {
    let mut conservative = vk::PhysicalDeviceConservativeRasterizationPropertiesEXT::default();
    let mut query = vk::PhysicalDeviceProperties2::default().push_next(&mut conservative);
    // SAFETY: the chain holds a structure of an extension the device has.
    unsafe { instance.get_physical_device_properties2(physical, &mut query) };
    conservative.fully_covered_fragment_shader_input_variable == vk::TRUE
}
