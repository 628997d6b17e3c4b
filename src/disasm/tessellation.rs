//! fxc's tessellation tables in the header of hull and domain shader listings, from the
//! program's declarations:
//!
//! ```text
//! // Tessellation Domain   # of control points
//! // -------------------- --------------------
//! // Quadrilateral                          16
//! //
//! // Tessellation Output Primitive  Partitioning Type
//! // ------------------------------ ------------------
//! // Clockwise Triangles            Integer
//! //
//! ```
//!
//! A hull shader shows its output control-point count and both tables, a domain shader its
//! input control-point count and the domain table. The names are those of fxc 10.1's
//! listings (`Isoline`, `Triangle`, `Quadrilateral`; `Point`, `Clockwise Triangles`,
//! `Counter-Clockwise Triangles`; `Integer`, `Integer Power of 2`, `Odd Fractional`);
//! `Line` and `Even Fractional` follow their pattern. The assembler skips these lines: the
//! declarations hold the same facts.

use crate::ir::*;
use std::fmt::Write;

/// Writes the tables of a hull or domain shader program (nothing for other stages, or when
/// the program declares no domain).
pub fn write_tessellation_tables(out: &mut String, program: &Program) {
    let hull = match program.model.stage {
        Stage::Hull => true,
        Stage::Domain => false,
        _ => return,
    };
    let mut domain = None;
    let mut points = None;
    let mut primitive = None;
    let mut partitioning = None;
    for declaration in program
        .instructions
        .iter()
        .filter_map(|i| i.declaration.as_ref())
    {
        match declaration {
            Declaration::TessDomain(d) => domain = Some(*d),
            Declaration::OutputControlPointCount(n) if hull => points = Some(*n),
            Declaration::InputControlPointCount(n) if !hull => points = Some(*n),
            Declaration::TessOutputPrimitive(p) => primitive = Some(*p),
            Declaration::TessPartitioning(p) => partitioning = Some(*p),
            _ => {}
        }
    }
    let Some(domain) = domain else {
        return;
    };
    let domain = match domain {
        TessDomain::Isoline => "Isoline",
        TessDomain::Triangle => "Triangle",
        TessDomain::Quad => "Quadrilateral",
        TessDomain::Undefined => "Undefined",
    };
    out.push_str("// Tessellation Domain   # of control points\n");
    out.push_str("// -------------------- --------------------\n");
    let _ = writeln!(out, "// {domain:<20} {:>20}", points.unwrap_or(0));
    out.push_str("//\n");
    if !hull {
        return;
    }
    let primitive = match primitive {
        Some(TessOutputPrimitive::Point) => "Point",
        Some(TessOutputPrimitive::Line) => "Line",
        Some(TessOutputPrimitive::TriangleCw) => "Clockwise Triangles",
        Some(TessOutputPrimitive::TriangleCcw) => "Counter-Clockwise Triangles",
        Some(TessOutputPrimitive::Undefined) | None => "Undefined",
    };
    let partitioning = match partitioning {
        Some(TessPartitioning::Integer) => "Integer",
        Some(TessPartitioning::Pow2) => "Integer Power of 2",
        Some(TessPartitioning::FractionalOdd) => "Odd Fractional",
        Some(TessPartitioning::FractionalEven) => "Even Fractional",
        Some(TessPartitioning::Undefined) | None => "Undefined",
    };
    out.push_str("// Tessellation Output Primitive  Partitioning Type \n");
    out.push_str("// ------------------------------ ------------------\n");
    let _ = writeln!(out, "// {primitive:<30} {partitioning:<18}");
    out.push_str("//\n");
}
