//! A macro for enums that mirror a stored integer and keep unknown values.

/// Declares a `Copy` enum over a stored integer type with `from_raw`/`raw` conversions and
/// an `Other(raw)` variant for values this reader does not know (never an error).
macro_rules! raw_enum {
    (
        $(#[$meta:meta])*
        $name:ident : $raw:ty {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this reader does not know, kept as stored.
            Other($raw),
        }

        impl $name {
            /// Maps a stored value to its variant; unknown values become `Other`.
            pub fn from_raw(raw: $raw) -> Self {
                match raw {
                    $( $value => Self::$variant, )*
                    other => Self::Other(other),
                }
            }

            /// The stored value.
            pub fn raw(self) -> $raw {
                match self {
                    $( Self::$variant => $value, )*
                    Self::Other(v) => v,
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::from_raw(0)
            }
        }
    };
}
