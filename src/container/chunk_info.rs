//! The chunks that describe a shader besides its program (signatures, RDEF, SFI0, IFCE,
//! STAT), gathered into one [`ChunkInfo`] ("reflection" is the API's name for what a
//! translation reports, [`crate::reflect::ShaderReflection`]).

use super::{
    Chunk, ClassInterfaces, Container, FeatureFlags, ResourceDefinitions, Signature, Statistics,
};
use crate::error::Result;

/// Everything the container says about the shader besides its program.
#[derive(Debug, Clone, Default)]
pub struct ChunkInfo {
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
    pub interfaces: Option<ClassInterfaces>,
    /// Compiler statistics (STAT).
    pub statistics: Option<Statistics>,
}

impl ChunkInfo {
    /// Parses every reflection chunk present in `container`; absent chunks stay `None`.
    ///
    /// A malformed reflection chunk is an error (located inside that chunk).
    pub fn parse(container: &Container<'_>) -> Result<Self> {
        let found = Found::scan(container);
        let signature = |chunks: &[Option<&Chunk<'_>>]| -> Result<Option<Signature>> {
            chunks
                .iter()
                .find_map(|c| *c)
                .map(|c| Signature::parse(c.fourcc, c.data))
                .transpose()
        };
        fn data<'a>(chunk: Option<&Chunk<'a>>) -> Option<&'a [u8]> {
            chunk.map(|c| c.data)
        }
        Ok(ChunkInfo {
            input: signature(&[found.isg1, found.isgn])?,
            output: signature(&[found.osg1, found.osg5, found.osgn])?,
            patch_constant: signature(&[found.psg1, found.pcsg])?,
            resources: data(found.rdef)
                .map(ResourceDefinitions::parse)
                .transpose()?,
            features: data(found.sfi0).map(FeatureFlags::parse).transpose()?,
            interfaces: data(found.ifce).map(ClassInterfaces::parse).transpose()?,
            statistics: data(found.stat).map(Statistics::parse).transpose()?,
        })
    }
}

/// The reflection chunks of a container, found in one pass over its directory: the first
/// chunk of each code, as [`Container::find`] gives.
#[derive(Default)]
struct Found<'c, 'a> {
    isg1: Option<&'c Chunk<'a>>,
    isgn: Option<&'c Chunk<'a>>,
    osg1: Option<&'c Chunk<'a>>,
    osg5: Option<&'c Chunk<'a>>,
    osgn: Option<&'c Chunk<'a>>,
    psg1: Option<&'c Chunk<'a>>,
    pcsg: Option<&'c Chunk<'a>>,
    rdef: Option<&'c Chunk<'a>>,
    sfi0: Option<&'c Chunk<'a>>,
    ifce: Option<&'c Chunk<'a>>,
    stat: Option<&'c Chunk<'a>>,
}

impl<'c, 'a> Found<'c, 'a> {
    fn scan(container: &'c Container<'a>) -> Self {
        let mut found = Found::default();
        for chunk in &container.chunks {
            let slot = match &chunk.fourcc {
                b"ISG1" => &mut found.isg1,
                b"ISGN" => &mut found.isgn,
                b"OSG1" => &mut found.osg1,
                b"OSG5" => &mut found.osg5,
                b"OSGN" => &mut found.osgn,
                b"PSG1" => &mut found.psg1,
                b"PCSG" => &mut found.pcsg,
                b"RDEF" => &mut found.rdef,
                b"SFI0" => &mut found.sfi0,
                b"IFCE" => &mut found.ifce,
                b"STAT" => &mut found.stat,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(chunk);
            }
        }
        found
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
        let r = ChunkInfo::parse(&c).unwrap();
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
        let e = ChunkInfo::parse(&c).unwrap_err();
        assert!(matches!(
            e.location,
            crate::error::Location::Chunk { fourcc, .. } if fourcc == *b"OSGN"
        ));
    }
}
