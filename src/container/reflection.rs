//! Gathering the reflection chunks of a container into one structure.

use super::{Container, FeatureFlags, Interfaces, ResourceDefinitions, Signature, Statistics};
use crate::error::Result;

/// Everything the container says about the shader besides its program.
#[derive(Debug, Clone, Default)]
pub struct Reflection {
    /// Input signature: ISG1, else ISGN.
    pub input: Option<Signature>,
    /// Output signature: OSG1, else OSG5, else OSGN.
    pub output: Option<Signature>,
    /// Patch constant signature: PSG1, else PCSG.
    pub patch_constant: Option<Signature>,
    /// Resource definitions (RDEF).
    pub resources: Option<ResourceDefinitions>,
    /// Feature flags (SFI0).
    pub features: Option<FeatureFlags>,
    /// Class linkage (IFCE).
    pub interfaces: Option<Interfaces>,
    /// Compiler statistics (STAT).
    pub statistics: Option<Statistics>,
}

impl Reflection {
    /// Parses every reflection chunk present in `container`; absent chunks stay `None`.
    ///
    /// A malformed reflection chunk is an error (located inside that chunk).
    pub fn parse(container: &Container<'_>) -> Result<Self> {
        let signature = |codes: &[[u8; 4]]| -> Result<Option<Signature>> {
            match codes.iter().find_map(|c| container.find(*c)) {
                Some(chunk) => Signature::parse(chunk.fourcc, chunk.data).map(Some),
                None => Ok(None),
            }
        };
        let data = |code: [u8; 4]| container.find(code).map(|c| c.data);
        Ok(Reflection {
            input: signature(&[*b"ISG1", *b"ISGN"])?,
            output: signature(&[*b"OSG1", *b"OSG5", *b"OSGN"])?,
            patch_constant: signature(&[*b"PSG1", *b"PCSG"])?,
            resources: data(*b"RDEF").map(ResourceDefinitions::parse).transpose()?,
            features: data(*b"SFI0").map(FeatureFlags::parse).transpose()?,
            interfaces: data(*b"IFCE").map(Interfaces::parse).transpose()?,
            statistics: data(*b"STAT").map(Statistics::parse).transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{container_bytes, sample_rdef};
    use super::super::ParseOptions;
    use super::*;

    #[test]
    fn picks_preferred_chunks() {
        let sig24 = vec![0u8, 0, 0, 0, 8, 0, 0, 0];
        let bytes = container_bytes(&[
            (*b"ISGN", sig24.clone()),
            (*b"OSGN", sig24.clone()),
            (*b"OSG5", sig24.clone()),
            (*b"PCSG", sig24.clone()),
            (*b"RDEF", sample_rdef(50)),
            (*b"SFI0", vec![1, 0, 0, 0, 0, 0, 0, 0]),
            (*b"STAT", vec![5, 0, 0, 0]),
        ]);
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let r = Reflection::parse(&c).unwrap();
        assert_eq!(r.input.unwrap().fourcc, *b"ISGN");
        assert_eq!(r.output.unwrap().fourcc, *b"OSG5");
        assert_eq!(r.patch_constant.unwrap().fourcc, *b"PCSG");
        assert_eq!(r.resources.unwrap().bindings.len(), 2);
        assert!(r.features.unwrap().contains(FeatureFlags::DOUBLES));
        assert_eq!(r.statistics.unwrap().instruction_count, 5);
        assert!(r.interfaces.is_none());
    }

    #[test]
    fn bad_chunk_is_an_error() {
        let bytes = container_bytes(&[(*b"OSGN", vec![9, 0, 0, 0, 8, 0, 0, 0])]);
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        let e = Reflection::parse(&c).unwrap_err();
        assert!(matches!(
            e.location,
            crate::error::Location::Chunk { fourcc, .. } if fourcc == *b"OSGN"
        ));
    }
}
