//! Readers for the Graph500 reference vectors: the edges, weights, roots and
//! oracle distances and levels that the official reference produces (the
//! formats of `graph-core/vectors/README.md`: little-endian, no headers).
//!
//! The SCALE 10 and 12 vectors ship in the repository (`graph-core/vectors/`,
//! about 2 MB), so tests need nothing beside the checkout. Tests across the
//! workspace, and anyone checking a kernel against the reference, read them
//! through [`Vectors`]:
//!
//! ```
//! use graph_core::io::vectors::Vectors;
//! let v = Vectors::bundled().unwrap();
//! let graph = v.edge_list(12).unwrap();        // 65536 edges, 4096 vertices
//! let root = v.roots(12).unwrap()[0];          // 1834
//! let dist = v.dist(12, root).unwrap();        // f32 per vertex, +inf unreached
//! let level = v.levels(12, root).unwrap();     // i64 per vertex, -1 unreached
//! # let _ = (graph, dist, level);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use crate::edge_list::{EdgeList, EdgeListError, Graph500Params, PackedEdge};

/// The environment variable that names the vectors' folder.
pub const ENV: &str = "GRAPH500_VECTORS";

/// A folder of reference vectors.
#[derive(Clone, Debug)]
pub struct Vectors {
    dir: PathBuf,
}

/// A vector file that is missing or does not have the expected shape.
#[derive(Debug)]
pub enum VectorsError {
    /// The folder does not exist.
    NoFolder(PathBuf),
    /// A file could not be read.
    Read(PathBuf, std::io::Error),
    /// A file's length or content does not fit its format.
    Format(PathBuf, String),
    /// The edges do not form a valid edge list.
    Edges(EdgeListError),
}

impl fmt::Display for VectorsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorsError::NoFolder(p) => write!(
                f,
                "no Graph500 reference vectors at {}: set {ENV} to the folder that holds them",
                p.display()
            ),
            VectorsError::Read(p, e) => write!(f, "cannot read {}: {e}", p.display()),
            VectorsError::Format(p, why) => write!(f, "{} is malformed: {why}", p.display()),
            VectorsError::Edges(e) => write!(f, "reference edges: {e}"),
        }
    }
}

impl std::error::Error for VectorsError {}

impl Vectors {
    /// The vectors in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Vectors { dir: dir.into() }
    }

    /// The folder named by `GRAPH500_VECTORS`, else `fallback`; an error if
    /// that folder does not exist.
    pub fn locate(fallback: impl AsRef<Path>) -> Result<Self, VectorsError> {
        let dir = std::env::var_os(ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| fallback.as_ref().to_path_buf());
        if dir.is_dir() {
            Ok(Vectors { dir })
        } else {
            Err(VectorsError::NoFolder(dir))
        }
    }

    /// The vectors that ship with this crate (`graph-core/vectors/`), or the
    /// folder named by `GRAPH500_VECTORS` when that is set (to check against
    /// vectors made elsewhere, e.g. at another SCALE).
    pub fn bundled() -> Result<Self, VectorsError> {
        Self::locate(Self::BUNDLED)
    }

    /// Where the bundled vectors live in the source tree.
    pub const BUNDLED: &'static str = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors");

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn read(&self, name: &str) -> Result<(PathBuf, Vec<u8>), VectorsError> {
        let p = self.dir.join(name);
        match std::fs::read(&p) {
            Ok(bytes) => Ok((p, bytes)),
            Err(e) => Err(VectorsError::Read(p, e)),
        }
    }

    fn records<const N: usize, T>(
        &self,
        name: &str,
        decode: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, VectorsError> {
        let (p, bytes) = self.read(name)?;
        if bytes.len() % N != 0 {
            let why = format!(
                "{} bytes is not a whole number of {N}-byte records",
                bytes.len()
            );
            return Err(VectorsError::Format(p, why));
        }
        Ok(bytes
            .chunks_exact(N)
            .map(|c| decode(c.try_into().expect("chunk of N bytes")))
            .collect())
    }

    /// The SCALE `scale` graph (edgefactor 16, seeds 2 and 3): `scaleS.edges`
    /// (`u64 src, u64 dst`) with `scaleS.weights` (`f32`), in generator order.
    pub fn edge_list(&self, scale: u32) -> Result<EdgeList<'static>, VectorsError> {
        let ends = self.records::<16, _>(&format!("scale{scale}.edges"), |b| {
            let u = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
            let v = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
            (u, v)
        })?;
        let weights = self.records::<4, _>(&format!("scale{scale}.weights"), f32::from_le_bytes)?;
        let params = Graph500Params::reference(scale);
        let mut list = EdgeList::zeroed(params).map_err(VectorsError::Edges)?;
        if ends.len() as u64 != list.num_edges() || weights.len() != ends.len() {
            let why = format!(
                "{} edges and {} weights, SCALE {scale} has {}",
                ends.len(),
                weights.len(),
                list.num_edges()
            );
            return Err(VectorsError::Format(
                self.dir.join(format!("scale{scale}.edges")),
                why,
            ));
        }
        for ((out, (u, v)), w) in list.edges_mut().iter_mut().zip(ends).zip(weights) {
            *out = PackedEdge::from_wide(u, v, w);
        }
        list.validate().map_err(VectorsError::Edges)?;
        Ok(list)
    }

    /// The 64 search roots, in the order the reference uses them.
    pub fn roots(&self, scale: u32) -> Result<Vec<u64>, VectorsError> {
        let (p, bytes) = self.read(&format!("scale{scale}.roots"))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| VectorsError::Format(p.clone(), "not UTF-8 text".into()))?;
        text.lines()
            .map(|l| {
                l.trim()
                    .parse()
                    .map_err(|_| VectorsError::Format(p.clone(), format!("bad root line {l:?}")))
            })
            .collect()
    }

    /// Oracle SSSP distances from `root` (f32 accumulation; `+inf` unreached).
    pub fn dist(&self, scale: u32, root: u64) -> Result<Vec<f32>, VectorsError> {
        self.records::<4, _>(&format!("scale{scale}.root{root}.dist"), f32::from_le_bytes)
    }

    /// Oracle BFS levels from `root` (`-1` unreached).
    pub fn levels(&self, scale: u32, root: u64) -> Result<Vec<i64>, VectorsError> {
        self.records::<8, _>(
            &format!("scale{scale}.root{root}.level"),
            i64::from_le_bytes,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here() -> Vectors {
        Vectors::bundled().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn reads_every_kind_of_file() {
        let v = here();
        let list = v.edge_list(10).unwrap();
        assert_eq!((list.num_vertices(), list.num_edges()), (1024, 16384));
        let roots = v.roots(10).unwrap();
        assert_eq!(roots.len(), 64);
        assert_eq!(&roots[..3], &[458, 214, 220]);
        assert_eq!(v.dist(10, 458).unwrap()[458], 0.0);
        assert_eq!(v.levels(10, 458).unwrap().len(), 1024);
    }

    #[test]
    fn missing_and_malformed_files_are_errors() {
        let v = here();
        let e = v.dist(10, 1).unwrap_err();
        assert!(e.to_string().contains("scale10.root1.dist"), "{e}");
        if std::env::var_os(ENV).is_none() {
            let e = Vectors::locate("/nonexistent/vectors").unwrap_err();
            assert!(e.to_string().contains("set GRAPH500_VECTORS"), "{e}");
        }
        let dir = std::env::temp_dir().join(format!("gg-vectors-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("scale10.root0.dist"), [0u8; 5]).unwrap();
        let e = Vectors::at(&dir).dist(10, 0).unwrap_err();
        assert!(e.to_string().contains("4-byte records"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
