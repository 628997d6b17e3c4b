//! Unit tests of the IR validators.
//!
//! Programs are built directly in the IR (so that forms no decoder would produce can be
//! checked too); one test decodes tokens to check that decoded SM5.0 and SM5.1 programs
//! validate.

use crate::error::Location;
use crate::ir::*;
use crate::isa::Opcode;

// ---------------------------------------------------------------------------------------------
// Builders.
// ---------------------------------------------------------------------------------------------

/// Builds a program instruction by instruction. Each instruction gets a distinct dword
/// offset (0x10 + 4 × index) so that errors can be checked for both index and dword.
struct Builder {
    program: Program,
}

fn dword_of(index: usize) -> u32 {
    0x10 + 4 * index as u32
}

impl Builder {
    fn new(stage: Stage, major: u8, minor: u8) -> Self {
        Builder {
            program: Program::new(ShaderModel {
                stage,
                major,
                minor,
            }),
        }
    }

    fn sm50() -> Self {
        Self::new(Stage::Pixel, 5, 0)
    }

    fn sm51() -> Self {
        Self::new(Stage::Pixel, 5, 1)
    }

    /// Appends an instruction whose operands are `operands` (pushed to the arena now).
    fn push(&mut self, mut instruction: Instruction, operands: &[Operand]) -> usize {
        let index = self.program.instructions.len();
        let start = self.program.operands.len() as u32;
        self.program.operands.extend_from_slice(operands);
        instruction.operands = OperandRange {
            start,
            len: operands.len() as u32,
        };
        instruction.dword = dword_of(index);
        instruction.length = 4;
        self.program.instructions.push(instruction);
        index
    }

    /// An ordinary instruction.
    fn op(&mut self, opcode: Opcode, dsts: &[Operand], srcs: &[Operand]) -> usize {
        let mut instruction = Instruction::new(opcode);
        instruction.dst_count = dsts.len() as u8;
        let all: Vec<Operand> = dsts.iter().chain(srcs).copied().collect();
        self.push(instruction, &all)
    }

    /// An instruction without operands (`else`, `loop`, `ret`, …).
    fn bare(&mut self, opcode: Opcode) -> usize {
        self.op(opcode, &[], &[])
    }

    /// A conditional instruction (`if_nz`, `breakc_nz`, …) on `r0.x`.
    fn test(&mut self, opcode: Opcode) -> usize {
        let mut instruction = Instruction::new(opcode);
        instruction.test = Some(Test::NonZero);
        self.push(instruction, &[temp_src(0, 0)])
    }

    /// A declaration without an operand.
    fn decl(&mut self, opcode: Opcode, declaration: Declaration) -> usize {
        let mut instruction = Instruction::new(opcode);
        instruction.declaration = Some(declaration);
        self.push(instruction, &[])
    }

    /// A declaration of `operand`, built by `make` from the operand's id.
    fn decl_operand(
        &mut self,
        opcode: Opcode,
        operand: Operand,
        make: impl FnOnce(OperandId) -> Declaration,
    ) -> usize {
        let id = OperandId(self.program.operands.len() as u32);
        let mut instruction = Instruction::new(opcode);
        instruction.declaration = Some(make(id));
        self.push(instruction, &[operand])
    }

    fn temps(&mut self, count: u32) -> usize {
        self.decl(Opcode::DclTemps, Declaration::Temps(count))
    }

    /// Declares a resource range of `kind` (`t`, `u`, `cb`, `s`).
    fn range(&mut self, kind: RegisterKind, range: ResourceRange) -> usize {
        let mut operand = Operand::register(kind, ComponentCount::Four, IDENTITY);
        operand.indices = [
            Index::Imm32(range.id),
            Index::Imm32(range.lower),
            Index::Imm32(range.upper.unwrap_or(u32::MAX)),
        ];
        operand.index_count = 3;
        let (opcode, make): (Opcode, Box<dyn FnOnce(OperandId) -> Declaration>) = match kind {
            RegisterKind::Resource => (
                Opcode::DclResource,
                Box::new(move |operand| Declaration::Resource {
                    operand,
                    range,
                    dimension: ResourceDimension::Texture2D,
                    sample_count: 0,
                    return_type: [ReturnType::Float; 4],
                }),
            ),
            RegisterKind::UnorderedAccessView => (
                Opcode::DclUavTyped,
                Box::new(move |operand| Declaration::UavTyped {
                    operand,
                    range,
                    dimension: ResourceDimension::Texture2D,
                    return_type: [ReturnType::Float; 4],
                    flags: UavFlags::default(),
                }),
            ),
            RegisterKind::ConstantBuffer => (
                Opcode::DclConstantBuffer,
                Box::new(move |operand| Declaration::ConstantBuffer {
                    operand,
                    range,
                    size: 4,
                    dynamic: false,
                }),
            ),
            RegisterKind::Sampler => (
                Opcode::DclSampler,
                Box::new(move |operand| Declaration::Sampler {
                    operand,
                    range,
                    mode: SamplerMode::Default,
                }),
            ),
            other => panic!("no range declaration for {other:?}"),
        };
        self.decl_operand(opcode, operand, make)
    }

    /// Stores an operand in the arena for use as a relative address.
    fn relative(&mut self, operand: Operand) -> OperandId {
        let id = OperandId(self.program.operands.len() as u32);
        self.program.operands.push(operand);
        id
    }
}

const IDENTITY: Selection = Selection::Swizzle([0, 1, 2, 3]);

/// A range as SM5.0 declares it: register = id = lower = upper, space 0.
fn single(register: u32) -> ResourceRange {
    ResourceRange {
        id: register,
        lower: register,
        upper: Some(register),
        space: 0,
    }
}

fn register(kind: RegisterKind, selection: Selection, indices: &[Index]) -> Operand {
    let mut operand = Operand::register(kind, ComponentCount::Four, selection);
    operand.indices[..indices.len()].copy_from_slice(indices);
    operand.index_count = indices.len() as u8;
    operand
}

/// `r#` with a write mask.
fn temp(n: u32, mask: u8) -> Operand {
    register(
        RegisterKind::Temp,
        Selection::Mask(mask),
        &[Index::Imm32(n)],
    )
}

/// `r#.c` as a source.
fn temp_src(n: u32, component: u8) -> Operand {
    register(
        RegisterKind::Temp,
        Selection::Select1(component),
        &[Index::Imm32(n)],
    )
}

/// `r#.xyzw` as a source.
fn temp_xyzw(n: u32) -> Operand {
    register(RegisterKind::Temp, IDENTITY, &[Index::Imm32(n)])
}

/// `v#.xyzw`.
fn input(n: u32) -> Operand {
    register(RegisterKind::Input, IDENTITY, &[Index::Imm32(n)])
}

/// `l(v)`.
fn imm(value: u32) -> Operand {
    let mut operand = Operand::register(
        RegisterKind::Immediate32,
        ComponentCount::One,
        Selection::Mask(0),
    );
    operand.values[0] = value;
    operand
}

/// A resource operand in SM5.1 form: `t1[12]` is (id 1, register 12); samplers have no
/// components, constant buffers take an element.
fn resource(kind: RegisterKind, id: u32, index: u32) -> Operand {
    match kind {
        RegisterKind::Sampler => {
            let mut operand = Operand::register(kind, ComponentCount::Zero, Selection::Mask(0));
            operand.indices[..2].copy_from_slice(&[Index::Imm32(id), Index::Imm32(index)]);
            operand.index_count = 2;
            operand
        }
        RegisterKind::ConstantBuffer => register(
            kind,
            IDENTITY,
            &[Index::Imm32(id), Index::Imm32(index), Index::Imm32(0)],
        ),
        _ => register(kind, IDENTITY, &[Index::Imm32(id), Index::Imm32(index)]),
    }
}

/// An instruction reading a resource of `kind`: `mov` for constant buffers, `sample` for
/// samplers (with `t0` declared by the caller), `ld` for textures and `ld_uav_typed` for UAVs.
fn use_resource(builder: &mut Builder, kind: RegisterKind, id: u32, index: u32) -> usize {
    let operand = resource(kind, id, index);
    match kind {
        RegisterKind::ConstantBuffer => builder.op(Opcode::Mov, &[temp(0, 0xf)], &[operand]),
        RegisterKind::Sampler => builder.op(
            Opcode::Sample,
            &[temp(0, 0xf)],
            &[
                temp_xyzw(0),
                resource(RegisterKind::Resource, 0, 0),
                operand,
            ],
        ),
        RegisterKind::Resource => builder.op(Opcode::Ld, &[temp(0, 0xf)], &[temp_xyzw(0), operand]),
        _ => builder.op(
            Opcode::LdUavTyped,
            &[temp(0, 0xf)],
            &[temp_xyzw(0), operand],
        ),
    }
}

/// Checks that `result` is an error at instruction `index` whose text mentions `what`.
fn expect_error(result: crate::error::Result<()>, index: usize, what: &str, case: &str) {
    let error = match result {
        Ok(()) => panic!("{case}: validated, but an error at instruction {index} was expected"),
        Err(e) => e,
    };
    assert_eq!(
        error.location,
        Location::Instruction {
            index: index as u32,
            dword: dword_of(index)
        },
        "{case}: location of `{error}`"
    );
    let text = error.to_string();
    let prefix = format!("instruction {index} (dword {:#x}): ", dword_of(index));
    assert!(
        text.starts_with(&prefix),
        "{case}: expected `{prefix}…`, got `{text}`"
    );
    assert!(
        text.contains(what),
        "{case}: expected an error mentioning `{what}`, got `{text}`"
    );
}

fn expect_valid(program: &Program, case: &str) {
    if let Err(e) = validate(program) {
        panic!("{case}: validate failed: {e}");
    }
    if let Err(e) = validate_control_flow(program) {
        panic!("{case}: validate_control_flow failed: {e}");
    }
}

// ---------------------------------------------------------------------------------------------
// validate.
// ---------------------------------------------------------------------------------------------

/// A program that uses every kind of declared register correctly.
fn valid_program(sm51: bool) -> Builder {
    let mut b = if sm51 {
        Builder::sm51()
    } else {
        Builder::sm50()
    };
    let (cb, t, u, s) = if sm51 {
        (
            ResourceRange {
                id: 0,
                lower: 3,
                upper: Some(3),
                space: 1,
            },
            ResourceRange {
                id: 1,
                lower: 10,
                upper: None,
                space: 0,
            },
            ResourceRange {
                id: 2,
                lower: 0,
                upper: Some(7),
                space: 2,
            },
            single(5),
        )
    } else {
        (single(0), single(1), single(2), single(3))
    };
    b.range(RegisterKind::ConstantBuffer, cb);
    b.range(RegisterKind::Resource, t);
    b.range(RegisterKind::UnorderedAccessView, u);
    b.range(RegisterKind::Sampler, s);
    b.temps(3);
    b.decl(
        Opcode::DclIndexableTemp,
        Declaration::IndexableTemp {
            register: 0,
            size: 8,
            components: 4,
        },
    );
    let lower = |r: ResourceRange| r.lower;
    b.op(
        Opcode::Add,
        &[temp(0, 0xf)],
        &[
            input(0),
            resource(RegisterKind::ConstantBuffer, cb.id, lower(cb)),
        ],
    );
    b.op(
        Opcode::Sample,
        &[temp(1, 0xf)],
        &[
            temp_xyzw(0),
            // An element inside the SM5.1 range; before SM5.1 the register is the range.
            resource(
                RegisterKind::Resource,
                t.id,
                lower(t) + if sm51 { 2 } else { 0 },
            ),
            resource(RegisterKind::Sampler, s.id, lower(s)),
        ],
    );
    b.op(
        Opcode::StoreUavTyped,
        &[register(
            RegisterKind::UnorderedAccessView,
            Selection::Mask(0xf),
            &[Index::Imm32(u.id), Index::Imm32(lower(u))],
        )],
        &[temp_xyzw(0), temp_xyzw(1)],
    );
    let address = b.relative(temp_src(2, 1));
    let x = register(
        RegisterKind::IndexableTemp,
        IDENTITY,
        &[Index::Imm32(0), Index::Imm32PlusRelative(1, address)],
    );
    b.op(Opcode::Mov, &[temp(2, 0b0011)], &[x]);
    let x_dst = register(
        RegisterKind::IndexableTemp,
        Selection::Mask(0xf),
        &[Index::Imm32(0), Index::Imm32(7)],
    );
    b.op(Opcode::Mov, &[x_dst], &[imm(0)]);
    b.test(Opcode::If);
    b.bare(Opcode::Else);
    b.bare(Opcode::EndIf);
    b.bare(Opcode::Ret);
    b
}

#[test]
fn valid_programs_pass() {
    for sm51 in [false, true] {
        let b = valid_program(sm51);
        expect_valid(&b.program, &format!("the valid program (SM5.1: {sm51})"));
    }
    let empty = Builder::sm50();
    expect_valid(&empty.program, "an empty program");
}

#[test]
fn temp_registers_within_dcl_temps() {
    let mut b = Builder::sm50();
    b.temps(2);
    b.op(Opcode::Mov, &[temp(1, 1)], &[temp_src(0, 0)]);
    let bad = b.op(Opcode::Mov, &[temp(2, 1)], &[temp_src(0, 0)]);
    expect_error(
        validate(&b.program),
        bad,
        "r2 is used but dcl_temps declares 2",
        "r2 with dcl_temps 2",
    );

    let mut b = Builder::sm50();
    b.temps(4);
    b.op(Opcode::Mov, &[temp(0, 1)], &[temp_src(3, 0)]);
    expect_valid(&b.program, "r3 with dcl_temps 4");

    // A source beyond the declaration, and no declaration at all.
    let mut b = Builder::sm50();
    b.temps(1);
    let bad = b.op(Opcode::Mov, &[temp(0, 1)], &[temp_src(1, 0)]);
    expect_error(
        validate(&b.program),
        bad,
        "operand 2: r1",
        "source r1 with dcl_temps 1",
    );
    let mut b = Builder::sm50();
    let bad = b.op(Opcode::Mov, &[temp(0, 1)], &[imm(0)]);
    expect_error(
        validate(&b.program),
        bad,
        "dcl_temps declares 0",
        "r0 without dcl_temps",
    );
}

#[test]
fn undeclared_indexable_temp() {
    let mut b = Builder::sm50();
    b.temps(1);
    b.decl(
        Opcode::DclIndexableTemp,
        Declaration::IndexableTemp {
            register: 0,
            size: 4,
            components: 4,
        },
    );
    b.op(
        Opcode::Mov,
        &[temp(0, 0xf)],
        &[register(
            RegisterKind::IndexableTemp,
            IDENTITY,
            &[Index::Imm32(0), Index::Imm32(3)],
        )],
    );
    let bad = b.op(
        Opcode::Mov,
        &[temp(0, 0xf)],
        &[register(
            RegisterKind::IndexableTemp,
            IDENTITY,
            &[Index::Imm32(1), Index::Imm32(0)],
        )],
    );
    expect_error(
        validate(&b.program),
        bad,
        "x1 is used but not declared",
        "x1 with only x0 declared",
    );
}

#[test]
fn undeclared_resources_sm50() {
    let kinds = [
        (RegisterKind::Resource, "t"),
        (RegisterKind::UnorderedAccessView, "u"),
        (RegisterKind::ConstantBuffer, "cb"),
        (RegisterKind::Sampler, "s"),
    ];
    for (kind, name) in kinds {
        // Declared register 2; using register 2 passes, register 3 fails.
        let mut b = Builder::sm50();
        b.temps(1);
        b.range(RegisterKind::Resource, single(0));
        b.range(kind, single(2));
        use_resource(&mut b, kind, 2, 2);
        expect_valid(&b.program, &format!("{name}2 declared and used"));
        let bad = use_resource(&mut b, kind, 3, 3);
        expect_error(
            validate(&b.program),
            bad,
            &format!("{name}3 is used but not declared"),
            &format!("undeclared {name}3 in SM5.0"),
        );
    }
}

#[test]
fn undeclared_resources_sm51() {
    let kinds = [
        (RegisterKind::Resource, "t"),
        (RegisterKind::UnorderedAccessView, "u"),
        (RegisterKind::ConstantBuffer, "cb"),
        (RegisterKind::Sampler, "s"),
    ];
    for (kind, name) in kinds {
        // Range id 1 covers registers 10 and up: `x1[12]` passes; `x10[12]` names a range
        // id that was never declared (the register number is not a range id).
        let mut b = Builder::sm51();
        b.temps(1);
        b.range(RegisterKind::Resource, single(0));
        b.range(
            kind,
            ResourceRange {
                id: 1,
                lower: 10,
                upper: None,
                space: 0,
            },
        );
        use_resource(&mut b, kind, 1, 12);
        expect_valid(&b.program, &format!("{name}1[12] in range {name}1[10:*]"));
        let bad = use_resource(&mut b, kind, 10, 12);
        expect_error(
            validate(&b.program),
            bad,
            &format!("{name}10 is used but not declared"),
            &format!("undeclared range {name}10 in SM5.1"),
        );
    }
}

#[test]
fn resource_operand_needs_an_immediate_range_id() {
    let mut b = Builder::sm51();
    b.temps(1);
    b.range(RegisterKind::Resource, single(0));
    let address = b.relative(temp_src(0, 0));
    let dynamic_id = register(
        RegisterKind::Resource,
        IDENTITY,
        &[Index::Relative(address), Index::Imm32(0)],
    );
    let bad = b.op(Opcode::Ld, &[temp(0, 0xf)], &[temp_xyzw(0), dynamic_id]);
    expect_error(
        validate(&b.program),
        bad,
        "no immediate range id",
        "t[r0.x][0]",
    );
}

/// `cb[r0.x + 0][element]` in SM5.0 form (range [`DYNAMIC_RANGE`]).
fn dynamic_cb(register: Index, element: u32) -> Operand {
    register_operand_cb(&[Index::Imm32(DYNAMIC_RANGE), register, Index::Imm32(element)])
}

fn register_operand_cb(indices: &[Index]) -> Operand {
    register(RegisterKind::ConstantBuffer, IDENTITY, indices)
}

#[test]
fn run_time_constant_buffer_register_in_sm50_only() {
    // SM5.0: `cb[r0.x + 0][2]` is valid without any declaration (D3D11's slots 0–13).
    let mut b = Builder::sm50();
    b.temps(1);
    let address = b.relative(temp_src(0, 0));
    let operand = dynamic_cb(Index::Imm32PlusRelative(0, address), 2);
    b.op(Opcode::Mov, &[temp(0, 0xf)], &[operand]);
    expect_valid(&b.program, "cb[r0.x + 0][2] in SM5.0");
    // An immediate register under the reserved id is not the run-time form.
    let bad_operand = dynamic_cb(Index::Imm32(3), 2);
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[bad_operand]);
    expect_error(
        validate(&b.program),
        bad,
        "needs a 32-bit relative register index",
        "range 0xffffffff with register 3",
    );
    // SM4.1 has no such operand.
    let mut b = Builder::new(Stage::Pixel, 4, 1);
    b.temps(1);
    let address = b.relative(temp_src(0, 0));
    let operand = dynamic_cb(Index::Relative(address), 0);
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[operand]);
    expect_error(
        validate(&b.program),
        bad,
        "needs shader model 5.0",
        "cb[r0.x][0] in SM4.1",
    );
    // SM5.1 indexes declared ranges: the reserved id is an undeclared range there.
    let mut b = Builder::sm51();
    b.temps(1);
    let address = b.relative(temp_src(0, 0));
    let operand = dynamic_cb(Index::Relative(address), 0);
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[operand]);
    expect_error(
        validate(&b.program),
        bad,
        "cb4294967295 is used but not declared",
        "the reserved id in SM5.1",
    );
    // A declared SM5.0 register's operand names the register itself.
    let mut b = Builder::sm50();
    b.temps(1);
    b.range(RegisterKind::ConstantBuffer, single(2));
    let address = b.relative(temp_src(0, 0));
    let operand = register_operand_cb(&[
        Index::Imm32(2),
        Index::Imm32PlusRelative(0, address),
        Index::Imm32(0),
    ]);
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[operand]);
    expect_error(
        validate(&b.program),
        bad,
        "register index must be its range id",
        "cb2 with a relative register in SM5.0",
    );
    // The reserved number cannot be declared.
    let mut b = Builder::sm50();
    let bad = b.range(RegisterKind::ConstantBuffer, single(DYNAMIC_RANGE));
    expect_error(
        validate(&b.program),
        bad,
        "is not a D3D11 register",
        "dcl_constantbuffer cb4294967295",
    );
}

#[test]
fn destination_forms() {
    // A swizzle on a destination.
    let mut b = Builder::sm50();
    b.temps(2);
    let bad = b.op(Opcode::Mov, &[temp_xyzw(0)], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "operand 1: destination r uses a swizzle instead of a mask",
        "mov with a swizzled destination",
    );
    // A select-1 on a destination.
    let mut b = Builder::sm50();
    b.temps(2);
    let bad = b.op(Opcode::Mov, &[temp_src(0, 1)], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "uses a swizzle instead of a mask",
        "mov with a select-1 destination",
    );
    // A modifier on a destination.
    for modifier in [Modifier::Neg, Modifier::Abs, Modifier::AbsNeg] {
        let mut b = Builder::sm50();
        b.temps(2);
        let mut destination = temp(0, 0xf);
        destination.modifier = modifier;
        let bad = b.op(Opcode::Mov, &[destination], &[temp_xyzw(1)]);
        expect_error(
            validate(&b.program),
            bad,
            "destination r has a source modifier",
            &format!("mov with a {modifier:?} destination"),
        );
    }
    // An immediate, a 64-bit immediate and a constant buffer as destinations.
    let mut b = Builder::sm50();
    b.temps(2);
    b.range(RegisterKind::ConstantBuffer, single(0));
    let bad = b.op(Opcode::Mov, &[imm(1)], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "l cannot be written",
        "mov to an immediate",
    );
    let mut b = Builder::sm50();
    b.temps(2);
    let mut d = Operand::register(
        RegisterKind::Immediate64,
        ComponentCount::Four,
        Selection::Mask(0),
    );
    d.values = [0, 0x3ff0_0000, 0, 0];
    let bad = b.op(Opcode::Dmov, &[d], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "d cannot be written",
        "dmov to a 64-bit immediate",
    );
    let mut b = Builder::sm50();
    b.temps(2);
    b.range(RegisterKind::ConstantBuffer, single(0));
    let mut cb = resource(RegisterKind::ConstantBuffer, 0, 0);
    cb.selection = Selection::Mask(0xf);
    let bad = b.op(Opcode::Mov, &[cb], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "cb cannot be written",
        "mov to a constant buffer",
    );
    // Sources may have swizzles and modifiers.
    let mut b = Builder::sm50();
    b.temps(2);
    let mut source = temp_xyzw(1);
    source.modifier = Modifier::AbsNeg;
    b.op(Opcode::Mov, &[temp(0, 0xf)], &[source]);
    expect_valid(&b.program, "mov r0.xyzw, -|r1.xyzw|");
}

#[test]
fn relative_addresses() {
    // A relative address selecting two components.
    let mut b = Builder::sm50();
    b.temps(2);
    b.decl(
        Opcode::DclIndexableTemp,
        Declaration::IndexableTemp {
            register: 0,
            size: 8,
            components: 4,
        },
    );
    let address = b.relative(temp(1, 0b0011));
    let x = register(
        RegisterKind::IndexableTemp,
        IDENTITY,
        &[Index::Imm32(0), Index::Relative(address)],
    );
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[x]);
    expect_error(
        validate(&b.program),
        bad,
        "the relative address of x selects more than one component",
        "x0[r1.xy]",
    );

    // One component through a mask, a select-1, a replicated swizzle or a scalar register.
    for (case, address) in [
        ("x0[r1.y] (mask)", temp(1, 0b0010)),
        ("x0[r1.z] (select-1)", temp_src(1, 2)),
        (
            "x0[r1.wwww]",
            register(
                RegisterKind::Temp,
                Selection::Swizzle([3; 4]),
                &[Index::Imm32(1)],
            ),
        ),
        (
            "x0[vPrim]",
            Operand::register(
                RegisterKind::InputPrimitiveId,
                ComponentCount::One,
                Selection::Mask(0),
            ),
        ),
    ] {
        let mut b = Builder::sm50();
        b.temps(2);
        b.decl(
            Opcode::DclIndexableTemp,
            Declaration::IndexableTemp {
                register: 0,
                size: 8,
                components: 4,
            },
        );
        let id = b.relative(address);
        let x = register(
            RegisterKind::IndexableTemp,
            IDENTITY,
            &[Index::Imm32(0), Index::Imm32PlusRelative(3, id)],
        );
        b.op(Opcode::Mov, &[temp(0, 0xf)], &[x]);
        expect_valid(&b.program, case);
    }

    // The address itself is checked: r5 is not declared.
    let mut b = Builder::sm50();
    b.temps(2);
    b.range(RegisterKind::ConstantBuffer, single(0));
    let address = b.relative(temp_src(5, 0));
    let cb = register(
        RegisterKind::ConstantBuffer,
        IDENTITY,
        &[
            Index::Imm32(0),
            Index::Imm32(0),
            Index::Imm32PlusRelative(1, address),
        ],
    );
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[cb]);
    expect_error(
        validate(&b.program),
        bad,
        "in the index of cb: r5 is used but dcl_temps declares 2",
        "cb0[r5.x + 1]",
    );

    // An address outside the operand arena.
    let mut b = Builder::sm50();
    b.temps(1);
    b.decl(
        Opcode::DclIndexableTemp,
        Declaration::IndexableTemp {
            register: 0,
            size: 8,
            components: 4,
        },
    );
    let x = register(
        RegisterKind::IndexableTemp,
        IDENTITY,
        &[Index::Imm32(0), Index::Relative(OperandId(999))],
    );
    let bad = b.op(Opcode::Mov, &[temp(0, 0xf)], &[x]);
    expect_error(
        validate(&b.program),
        bad,
        "outside the arena",
        "x0[operand 999]",
    );
}

#[test]
fn relative_addresses_nest_at_most_four_levels() {
    // x0[x0[…[r0.x]…].x] with `levels` relative addresses in the chain.
    fn program(levels: usize) -> (Program, usize) {
        let mut b = Builder::sm50();
        b.temps(1);
        b.decl(
            Opcode::DclIndexableTemp,
            Declaration::IndexableTemp {
                register: 0,
                size: 8,
                components: 4,
            },
        );
        let mut address = b.relative(temp_src(0, 0));
        for _ in 1..levels {
            let x = register(
                RegisterKind::IndexableTemp,
                Selection::Select1(0),
                &[Index::Imm32(0), Index::Relative(address)],
            );
            address = b.relative(x);
        }
        let x = register(
            RegisterKind::IndexableTemp,
            IDENTITY,
            &[Index::Imm32(0), Index::Relative(address)],
        );
        let index = b.op(Opcode::Mov, &[temp(0, 0xf)], &[x]);
        (b.program, index)
    }
    let (four, _) = program(4);
    expect_valid(
        &four,
        "four nested relative addresses (the decoder's limit)",
    );
    let (five, index) = program(5);
    expect_error(
        validate(&five),
        index,
        "nest too deeply",
        "five nested addresses",
    );
}

#[test]
fn range_upper_below_lower() {
    for kind in [
        RegisterKind::Resource,
        RegisterKind::UnorderedAccessView,
        RegisterKind::ConstantBuffer,
        RegisterKind::Sampler,
    ] {
        let mut b = Builder::sm51();
        b.range(kind, single(0));
        let bad = b.range(
            kind,
            ResourceRange {
                id: 1,
                lower: 5,
                upper: Some(3),
                space: 0,
            },
        );
        expect_error(
            validate(&b.program),
            bad,
            "range 1 has upper bound Some(3) below its lower bound 5",
            &format!("{kind:?} range [5:3]"),
        );
        // upper == lower and unbounded ranges are fine.
        let mut b = Builder::sm51();
        b.range(kind, single(5));
        b.range(
            kind,
            ResourceRange {
                id: 1,
                lower: 5,
                upper: None,
                space: 0,
            },
        );
        expect_valid(&b.program, &format!("{kind:?} ranges [5:5] and [5:*]"));
    }
}

#[test]
fn operand_counts_and_index_counts() {
    // `add` with two operands.
    let mut b = Builder::sm50();
    b.temps(2);
    let bad = b.op(Opcode::Add, &[temp(0, 0xf)], &[temp_xyzw(1)]);
    expect_error(
        validate(&b.program),
        bad,
        "add takes 3 operand(s), found 2",
        "add with one source",
    );
    // `imul` with one destination and three sources (the right count, the wrong split).
    let mut b = Builder::sm50();
    b.temps(2);
    let bad = b.op(
        Opcode::Imul,
        &[temp(0, 1)],
        &[temp_src(1, 0), temp_src(1, 1), temp_src(1, 2)],
    );
    expect_error(
        validate(&b.program),
        bad,
        "imul takes 4 operand(s)",
        "imul with one destination",
    );
    // `r` with two indices.
    let mut b = Builder::sm50();
    b.temps(2);
    let two = register(
        RegisterKind::Temp,
        Selection::Mask(1),
        &[Index::Imm32(0), Index::Imm32(0)],
    );
    let bad = b.op(Opcode::Mov, &[two], &[temp_src(1, 0)]);
    expect_error(
        validate(&b.program),
        bad,
        "r takes 1 index(es), found 2",
        "r0[0]",
    );
    // A resource in SM5.0 form (one index) is not what the IR holds.
    let mut b = Builder::sm50();
    b.temps(1);
    b.range(RegisterKind::Resource, single(0));
    let t0 = register(RegisterKind::Resource, IDENTITY, &[Index::Imm32(0)]);
    let bad = b.op(Opcode::Ld, &[temp(0, 0xf)], &[temp_xyzw(0), t0]);
    expect_error(
        validate(&b.program),
        bad,
        "t takes 2 index(es), found 1",
        "t0 with one index",
    );
    // Operands outside the arena.
    let mut b = Builder::sm50();
    b.temps(1);
    let bad = b.op(Opcode::Mov, &[temp(0, 1)], &[temp_src(0, 0)]);
    b.program.instructions[bad].operands.start = 1000;
    expect_error(
        validate(&b.program),
        bad,
        "outside the operand arena",
        "operands at 1000",
    );
}

#[test]
fn declarations_carry_their_payload() {
    let mut b = Builder::sm50();
    let bad = b.push(Instruction::new(Opcode::DclTemps), &[]);
    expect_error(
        validate(&b.program),
        bad,
        "dcl_temps carries no declaration",
        "dcl_temps without a declaration",
    );
    // Data outside the data arena.
    let mut b = Builder::sm50();
    let bad = b.decl(
        Opcode::CustomData,
        Declaration::CustomData {
            class: CustomDataClass::ImmediateConstantBuffer,
            data: DataRange { start: 0, len: 4 },
        },
    );
    expect_error(
        validate(&b.program),
        bad,
        "data lies outside the data arena",
        "an icb with no data",
    );
    b.program.data.extend_from_slice(&[0; 4]);
    expect_valid(&b.program, "an icb with its four dwords");
}

#[test]
fn decoded_programs_validate() {
    // ps_5_0 and ps_5_1: dcl_constantbuffer cb0, dcl_resource t0, dcl_sampler s0,
    // dcl_temps 1, sample, mul by cb0[0], ret.
    fn words(minor: u32) -> Vec<u32> {
        let sm51 = minor == 1;
        let src4 = |kind: u32| 2 | (1 << 2) | (0xe4 << 4) | (kind << 12);
        let mut body = Vec::new();
        if sm51 {
            body.extend_from_slice(&[89 | (7 << 24), src4(8) | (3 << 20), 0, 0, 0, 1, 0]);
            body.extend_from_slice(&[88 | (3 << 11) | (7 << 24), src4(7) | (3 << 20), 0, 0, 0]);
            body.extend_from_slice(&[0x5555, 0]);
            body.extend_from_slice(&[90 | (6 << 24), src4(6) | (3 << 20), 0, 0, 0, 0]);
        } else {
            body.extend_from_slice(&[89 | (4 << 24), src4(8) | (2 << 20), 0, 1]);
            body.extend_from_slice(&[88 | (3 << 11) | (4 << 24), (7 << 12) | (1 << 20), 0, 0x5555]);
            body.extend_from_slice(&[90 | (3 << 24), (6 << 12) | (1 << 20), 0]);
        }
        body.extend_from_slice(&[104 | (2 << 24), 1]);
        let (t, s, cb): (&[u32], &[u32], &[u32]) = if sm51 {
            (
                &[src4(7) | (2 << 20), 0, 0],
                &[(6 << 12) | (2 << 20), 0, 0],
                &[src4(8) | (3 << 20), 0, 0, 0],
            )
        } else {
            (
                &[src4(7) | (1 << 20), 0],
                &[(6 << 12) | (1 << 20), 0],
                &[src4(8) | (2 << 20), 0, 0],
            )
        };
        let r0 = [2 | (0xf << 4) | (1 << 20), 0];
        let r0_src = [src4(0) | (1 << 20), 0];
        let mut sample = vec![0];
        sample.extend_from_slice(&r0);
        sample.extend_from_slice(&r0_src);
        sample.extend_from_slice(t);
        sample.extend_from_slice(s);
        sample[0] = 69 | ((sample.len() as u32) << 24);
        body.extend(sample);
        let mut mul = vec![0];
        mul.extend_from_slice(&r0);
        mul.extend_from_slice(&r0_src);
        mul.extend_from_slice(cb);
        mul[0] = 56 | ((mul.len() as u32) << 24);
        body.extend(mul);
        body.push(62 | (1 << 24));
        let mut words = vec![(5 << 4) | minor, body.len() as u32 + 2];
        words.extend(body);
        words
    }
    for minor in [0, 1] {
        let words = words(minor);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let program = crate::tpf::decode(&bytes)
            .unwrap_or_else(|e| panic!("decoding ps_5_{minor} {words:08x?}: {e}"));
        expect_valid(&program, &format!("the decoded ps_5_{minor} program"));
        assert_eq!(
            program.instructions.len(),
            7,
            "instructions decoded from {words:08x?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// validate_control_flow.
// ---------------------------------------------------------------------------------------------

/// A program of the given instructions (conditional ones test `r0.x`).
fn flow(opcodes: &[Opcode]) -> (Program, Vec<usize>) {
    let mut b = Builder::sm50();
    let indices = opcodes
        .iter()
        .map(|&opcode| match opcode {
            Opcode::If | Opcode::Breakc | Opcode::Continuec | Opcode::Retc | Opcode::Discard => {
                b.test(opcode)
            }
            Opcode::Switch => b.op(opcode, &[], &[temp_src(0, 0)]),
            Opcode::Case => b.op(opcode, &[], &[imm(1)]),
            _ => b.bare(opcode),
        })
        .collect();
    (b.program, indices)
}

fn names(opcodes: &[Opcode]) -> String {
    opcodes
        .iter()
        .map(|o| o.name())
        .collect::<Vec<_>>()
        .join(" ")
}

fn expect_flow_ok(opcodes: &[Opcode]) {
    let (program, _) = flow(opcodes);
    if let Err(e) = validate_control_flow(&program) {
        panic!("`{}`: expected balanced blocks, got `{e}`", names(opcodes));
    }
}

fn expect_flow_error(opcodes: &[Opcode], index: usize, what: &str) {
    let (program, _) = flow(opcodes);
    expect_error(
        validate_control_flow(&program),
        index,
        what,
        &format!("`{}`", names(opcodes)),
    );
}

use Opcode::{
    Break, Breakc, Case, Continue, Continuec, Else, EndIf, EndLoop, EndSwitch, HsForkPhase, If,
    Label, Loop, Mov, Ret, Retc, Switch,
};
/// `default` (not imported by name, which would shadow the `Default` trait).
const DEFAULT: Opcode = Opcode::Default;

#[test]
fn balanced_if_else_endif() {
    expect_flow_ok(&[If, Mov, EndIf, Ret]);
    expect_flow_ok(&[If, Mov, Else, Mov, EndIf, Ret]);
    expect_flow_ok(&[If, If, Else, EndIf, Else, If, EndIf, EndIf, Ret]);
    expect_flow_ok(&[If, Retc, Ret, Else, Ret, EndIf]);
}

#[test]
fn loops_with_break_and_continue() {
    expect_flow_ok(&[Loop, Breakc, Continuec, Break, EndLoop, Ret]);
    expect_flow_ok(&[Loop, If, Break, Else, Continue, EndIf, EndLoop]);
    expect_flow_ok(&[Loop, Loop, Break, EndLoop, Continue, EndLoop]);
    // `continue` in a switch continues the enclosing loop.
    expect_flow_ok(&[
        Loop, Switch, Case, Continue, DEFAULT, Break, EndSwitch, EndLoop,
    ]);
}

#[test]
fn switch_case_default() {
    expect_flow_ok(&[
        Switch, Case, Break, Case, Case, Mov, Break, DEFAULT, Break, EndSwitch,
    ]);
    expect_flow_ok(&[Switch, DEFAULT, Break, EndSwitch, Ret]);
    expect_flow_ok(&[Switch, Case, Loop, Break, EndLoop, Break, EndSwitch]);
    expect_flow_ok(&[Switch, Case, If, Break, EndIf, Break, EndSwitch]);
}

#[test]
fn else_without_if() {
    expect_flow_error(&[Mov, Else, EndIf], 1, "else without a matching if");
    expect_flow_error(&[If, Else, Else, EndIf], 2, "else without a matching if");
    expect_flow_error(&[Loop, Else, EndLoop], 1, "else without a matching if");
}

#[test]
fn unmatched_block_ends() {
    expect_flow_error(&[Mov, EndIf], 1, "endif without a matching if");
    expect_flow_error(&[If, EndIf, EndIf], 2, "endif without a matching if");
    expect_flow_error(&[Loop, EndIf], 1, "endif without a matching if");
    expect_flow_error(&[Ret, EndLoop], 1, "endloop without a matching loop");
    expect_flow_error(&[If, EndLoop], 1, "endloop without a matching loop");
    expect_flow_error(&[EndSwitch], 0, "endswitch without a matching switch");
    expect_flow_error(&[Loop, EndSwitch], 1, "endswitch without a matching switch");
    // Crossed blocks.
    expect_flow_error(
        &[Loop, If, EndLoop, EndIf],
        2,
        "endloop without a matching loop",
    );
}

#[test]
fn case_and_default_outside_switch() {
    expect_flow_error(&[Case, Ret], 0, "case or default outside a switch");
    expect_flow_error(
        &[Loop, DEFAULT, EndLoop],
        1,
        "case or default outside a switch",
    );
    // A case must sit directly in the switch, not in a block inside it.
    expect_flow_error(
        &[Switch, Case, If, Case, EndIf, EndSwitch],
        3,
        "case or default outside a switch",
    );
    expect_flow_error(
        &[Switch, DEFAULT, EndSwitch, DEFAULT],
        3,
        "case or default outside a switch",
    );
}

#[test]
fn break_and_continue_outside_loops() {
    expect_flow_error(&[Mov, Break], 1, "break outside a loop or switch");
    expect_flow_error(&[If, Breakc, EndIf], 1, "break outside a loop or switch");
    expect_flow_error(&[Loop, EndLoop, Break], 2, "break outside a loop or switch");
    expect_flow_error(&[Continue], 0, "continue outside a loop");
    expect_flow_error(&[If, Continuec, EndIf], 1, "continue outside a loop");
    // A switch is not a loop for `continue`.
    expect_flow_error(
        &[Switch, Case, Continue, EndSwitch],
        2,
        "continue outside a loop",
    );
}

#[test]
fn unclosed_blocks_at_the_end() {
    expect_flow_error(&[If, Mov], 1, "1 block(s) are still open");
    expect_flow_error(&[Loop, Mov, If, Else, Ret], 4, "2 block(s) are still open");
    expect_flow_error(&[Switch, Case, Break], 2, "1 block(s) are still open");
    expect_flow_error(&[If], 0, "1 block(s) are still open");
}

#[test]
fn subroutines_and_phases_start_outside_blocks() {
    let flow = |text: &str| {
        let program = crate::asm::parse_program_unchecked(text).expect("parses");
        super::validate_control_flow(&program).map_err(|e| e.to_string())
    };
    assert_eq!(flow("ps_5_0\nret\nlabel l0\nret\nlabel l1\nret\n"), Ok(()));
    // Found by the translate fuzz target: two subroutines of one number, and a label of a
    // temp, gave two functions one id.
    let twice = flow("ps_5_0\nret\nlabel l1\nret\nlabel l1\nret\n");
    assert!(
        twice.as_ref().is_err_and(|e| e.contains("defined twice")),
        "{twice:?}"
    );
    let temp = flow("ps_5_0\ndcl_temps 2\nret\nlabel r1.x\nret\n");
    assert!(
        temp.as_ref().is_err_and(|e| e.contains("label needs")),
        "{temp:?}"
    );
    // A switch has one default.
    let defaults = flow(
        "ps_5_0\ndcl_constantbuffer cb0[1], immediateIndexed\nswitch cb0[0].x\ndefault\nbreak\n\
         default\nbreak\nendswitch\nret\n",
    );
    assert!(
        defaults
            .as_ref()
            .is_err_and(|e| e.contains("second default")),
        "{defaults:?}"
    );
    expect_flow_error(&[If, Label, EndIf], 1, "starts inside an open block");
    expect_flow_error(
        &[Loop, HsForkPhase, EndLoop],
        1,
        "starts inside an open block",
    );
}
