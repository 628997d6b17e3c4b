//! Shader models, conditions such as `sm>=4 & sm<6 | msl` and the qualifiers built on them
//! (`todo(...)`, `fail(...)`, `notimpl(...)`, `bug(...)`, `if(...)`).

use std::fmt;

use super::scan::Scanner;
use dxbc2spirv::Result;

/// A shader model, e.g. 4.0 or 5.1, ordered by (major, minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShaderModel {
    /// Major version.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl ShaderModel {
    /// Builds a shader model.
    pub const fn new(major: u8, minor: u8) -> Self {
        ShaderModel { major, minor }
    }

    /// Parses `4`, `4.0`, `5.1` or `6.2`.
    pub fn parse(text: &str) -> Option<Self> {
        let (major, minor) = match text.split_once('.') {
            Some((major, minor)) => (major, minor),
            None => (text, "0"),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(major) || !digits(minor) {
            return None;
        }
        Some(ShaderModel::new(major.parse().ok()?, minor.parse().ok()?))
    }

    /// The profile suffix, e.g. `4_0`.
    pub fn profile_suffix(self) -> String {
        format!("{}_{}", self.major, self.minor)
    }
}

impl fmt::Display for ShaderModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A comparison operator in a shader-model test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterEqual,
    /// `==` or `=`
    Equal,
    /// `!=`
    NotEqual,
}

impl CompareOp {
    /// Applies the operator to `a op b`.
    pub fn apply<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            CompareOp::Less => a < b,
            CompareOp::LessEqual => a <= b,
            CompareOp::Greater => a > b,
            CompareOp::GreaterEqual => a >= b,
            CompareOp::Equal => a == b,
            CompareOp::NotEqual => a != b,
        }
    }
}

/// One term of a condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// `sm<op><model>`, e.g. `sm>=5.1`.
    ShaderModel(CompareOp, ShaderModel),
    /// A runner or backend tag, e.g. `msl`, `glsl`, `vulkan`, `llvmpipe`. Versioned tags
    /// such as `mvk<1.2.11` are kept whole and are true only if that exact text is a tag.
    Tag(String),
}

/// A possibly negated term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    /// True for `!term`.
    pub negated: bool,
    /// The term.
    pub atom: Atom,
}

/// A condition in disjunctive form: true when any group has all its literals true
/// (`&` binds tighter than `|`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The `|`-separated groups of `&`-joined literals.
    pub any_of: Vec<Vec<Literal>>,
}

/// What a condition is evaluated against.
#[derive(Debug, Clone, Copy)]
pub struct EvalContext<'a> {
    /// The shader model the section is compiled with.
    pub model: ShaderModel,
    /// Tags that are true for this runner (e.g. `vulkan`); every other tag is false.
    pub tags: &'a [&'a str],
}

impl<'a> EvalContext<'a> {
    /// A context with a shader model and no tags (the fxc / d3dcompiler view used by the
    /// corpus manifest).
    pub fn model(model: ShaderModel) -> EvalContext<'static> {
        EvalContext { model, tags: &[] }
    }
}

impl Condition {
    /// Parses the text between the parentheses, e.g. `sm<4 | sm>=6`.
    pub fn parse(text: &str, line: u32, column: u32) -> Result<Condition> {
        let mut any_of = Vec::new();
        for group in text.split('|') {
            let mut all_of = Vec::new();
            for term in group.split('&') {
                let term = term.trim();
                let (negated, body) = match term.strip_prefix('!') {
                    Some(body) => (true, body.trim_start()),
                    None => (false, term),
                };
                if body.is_empty() {
                    return Err(dxbc2spirv::Error::text(
                        line,
                        column,
                        format!("empty term in condition '{text}'"),
                    ));
                }
                let atom = match body.strip_prefix("sm") {
                    Some(cmp) if cmp.starts_with(['<', '>', '=', '!']) => {
                        let (op, model) = if let Some(m) = cmp.strip_prefix(">=") {
                            (CompareOp::GreaterEqual, m)
                        } else if let Some(m) = cmp.strip_prefix("<=") {
                            (CompareOp::LessEqual, m)
                        } else if let Some(m) = cmp.strip_prefix("==") {
                            (CompareOp::Equal, m)
                        } else if let Some(m) = cmp.strip_prefix("!=") {
                            (CompareOp::NotEqual, m)
                        } else if let Some(m) = cmp.strip_prefix('>') {
                            (CompareOp::Greater, m)
                        } else if let Some(m) = cmp.strip_prefix('<') {
                            (CompareOp::Less, m)
                        } else if let Some(m) = cmp.strip_prefix('=') {
                            (CompareOp::Equal, m)
                        } else {
                            return Err(dxbc2spirv::Error::text(
                                line,
                                column,
                                format!("bad comparison '{body}'"),
                            ));
                        };
                        let model = ShaderModel::parse(model.trim()).ok_or_else(|| {
                            dxbc2spirv::Error::text(
                                line,
                                column,
                                format!("bad shader model in '{body}'"),
                            )
                        })?;
                        Atom::ShaderModel(op, model)
                    }
                    _ => {
                        if !body
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "_-.<>=!".contains(c))
                        {
                            return Err(dxbc2spirv::Error::text(
                                line,
                                column,
                                format!("bad condition term '{body}'"),
                            ));
                        }
                        Atom::Tag(body.to_string())
                    }
                };
                all_of.push(Literal { negated, atom });
            }
            any_of.push(all_of);
        }
        Ok(Condition { any_of })
    }

    /// Evaluates the condition.
    pub fn eval(&self, ctx: &EvalContext<'_>) -> bool {
        self.any_of.iter().any(|group| {
            group.iter().all(|lit| {
                let value = match &lit.atom {
                    Atom::ShaderModel(op, model) => op.apply(ctx.model, *model),
                    Atom::Tag(tag) => ctx.tags.contains(&tag.as_str()),
                };
                value != lit.negated
            })
        })
    }
}

/// The kinds of conditional marks found in headers and before test commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// `todo`: vkd3d is known to get this wrong.
    Todo,
    /// `fail`: compiling is expected to fail.
    Fail,
    /// `notimpl`: the native compiler does not implement this.
    NotImpl,
    /// `bug`: a known driver or native bug.
    Bug,
    /// `winbug`: results differ across Windows implementations.
    WinBug,
    /// `if`: the line only applies when the condition holds.
    If,
}

impl MarkKind {
    /// The keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            MarkKind::Todo => "todo",
            MarkKind::Fail => "fail",
            MarkKind::NotImpl => "notimpl",
            MarkKind::Bug => "bug",
            MarkKind::WinBug => "winbug",
            MarkKind::If => "if",
        }
    }

    const ALL: [MarkKind; 6] = [
        MarkKind::Todo,
        MarkKind::Fail,
        MarkKind::NotImpl,
        MarkKind::Bug,
        MarkKind::WinBug,
        MarkKind::If,
    ];
}

/// A mark with an optional condition, e.g. `todo`, `fail(sm>=6)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// Which mark.
    pub kind: MarkKind,
    /// The condition in parentheses; `None` means always.
    pub condition: Option<Condition>,
}

impl Mark {
    /// True when the mark applies in `ctx`.
    pub fn applies(&self, ctx: &EvalContext<'_>) -> bool {
        self.condition.as_ref().is_none_or(|c| c.eval(ctx))
    }
}

/// Tries to read one mark (`todo`, `todo(...)`, `if(...)`, …) at the scanner position.
pub(crate) fn read_mark(scanner: &mut Scanner<'_>) -> Result<Option<Mark>> {
    scanner.skip_ws();
    for kind in MarkKind::ALL {
        let rest = scanner.rest();
        let Some(after) = rest.strip_prefix(kind.keyword()) else {
            continue;
        };
        if after.starts_with('(') {
            scanner.require(kind.keyword())?;
            scanner.require("(")?;
            let inner = scanner.rest();
            let close = inner
                .find(')')
                .ok_or_else(|| scanner.error("unclosed '(' in condition"))?;
            let text = inner.get(..close).unwrap_or("");
            let condition = Condition::parse(text, scanner.line(), scanner.column())?;
            scanner.skip_bytes(close + 1);
            return Ok(Some(Mark {
                kind,
                condition: Some(condition),
            }));
        }
        if after.is_empty() || after.starts_with(char::is_whitespace) {
            if kind == MarkKind::If {
                return Err(scanner.error("'if' needs a condition"));
            }
            scanner.require(kind.keyword())?;
            return Ok(Some(Mark {
                kind,
                condition: None,
            }));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm(major: u8, minor: u8) -> EvalContext<'static> {
        EvalContext::model(ShaderModel::new(major, minor))
    }

    #[test]
    fn models() {
        assert_eq!(ShaderModel::parse("5.1"), Some(ShaderModel::new(5, 1)));
        assert_eq!(ShaderModel::parse("4"), Some(ShaderModel::new(4, 0)));
        assert_eq!(ShaderModel::parse("x"), None);
        assert!(ShaderModel::new(4, 1) < ShaderModel::new(5, 0));
        assert_eq!(ShaderModel::new(5, 0).profile_suffix(), "5_0");
    }

    #[test]
    fn conditions() {
        let c = Condition::parse("sm<4 | sm>=6", 1, 1).unwrap();
        assert!(c.eval(&sm(3, 0)));
        assert!(!c.eval(&sm(4, 0)));
        assert!(c.eval(&sm(6, 2)));
        let c = Condition::parse("sm>=2&sm<6", 1, 1).unwrap();
        assert!(c.eval(&sm(5, 1)));
        assert!(!c.eval(&sm(6, 0)));
        let c = Condition::parse("msl & sm>=6", 1, 1).unwrap();
        assert!(!c.eval(&sm(6, 0)));
        let tags = ["msl"];
        let ctx = EvalContext {
            model: ShaderModel::new(6, 0),
            tags: &tags,
        };
        assert!(c.eval(&ctx));
        let c = Condition::parse("!llvmpipe & sm<6", 1, 1).unwrap();
        assert!(c.eval(&sm(4, 0)));
        assert!(Condition::parse("sm>=x", 1, 1).is_err());
        assert!(Condition::parse("a & ", 1, 1).is_err());
    }

    #[test]
    fn marks() {
        let mut s = Scanner::new("todo(sm<6) fail draw quad", 1);
        let m = read_mark(&mut s).unwrap().unwrap();
        assert_eq!(m.kind, MarkKind::Todo);
        assert!(m.applies(&sm(5, 0)));
        let m = read_mark(&mut s).unwrap().unwrap();
        assert_eq!(m.kind, MarkKind::Fail);
        assert!(m.condition.is_none());
        assert!(read_mark(&mut s).unwrap().is_none());
        assert_eq!(s.rest().trim(), "draw quad");
        let mut s = Scanner::new("todo_thing", 1);
        assert!(read_mark(&mut s).unwrap().is_none());
        let mut s = Scanner::new("if(sm<4", 1);
        assert!(read_mark(&mut s).is_err());
    }
}
