//! Where a distributed build reads its edges: an [`EdgeSource`] every
//! trustee opens in its own process; [`LocalSource`], the one for edge
//! records each process holds itself ([`EdgeRecords`]: an edge list, or a
//! mapped graph file).

use std::ops::Range;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::edge_list::{EdgeList, PackedEdge};
use crate::io::file::MappedGraph;

/// Where a distributed build reads its edges. Cloned (and serialized, for
/// trustees in other processes) to every trustee, which opens it in its own
/// process and reads its slice.
pub trait EdgeSource: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The source opened in one process (a generator, a mapping).
    type Reader;
    /// Vertex count.
    fn num_vertices(&self) -> u64;
    /// Input edge records (self-loops and duplicates included).
    fn num_edges(&self) -> u64;
    /// Opens the source in this process; the message says what failed.
    fn open(&self) -> Result<Self::Reader, String>;
    /// Writes edges `start .. start + out.len()` into `out`.
    fn read(&self, reader: &Self::Reader, start: u64, out: &mut [PackedEdge]);
    /// Whether each record is an arc `u -> v` (then the shards hold
    /// out-edges in their rows and an in-edge index, see
    /// [`Shard::is_directed`](crate::Shard::is_directed)) rather than an
    /// undirected edge. Default: undirected (the Graph500 generator's
    /// records).
    fn directed(&self) -> bool {
        false
    }
    /// Whether the shards keep each entry's weight (4 B per entry beside
    /// its target). A build for kernels that never read weights (all but
    /// SSSP) wraps its source in [`Unweighted`]: the shards then have no
    /// weight array ([`Shard::is_weighted`](crate::Shard::is_weighted)).
    /// Default: weighted.
    fn weighted(&self) -> bool {
        true
    }
    /// Thousandths of its slice a trustee keeps from the first pass for
    /// the second (12 B per kept edge, until the shards are built); the
    /// rest the second pass reads again. Keeping saves reading (for a
    /// generator: generating) it twice; a mapping or a list in memory
    /// reads again for free and keeps nothing. `on_rank_0`: the trustee
    /// runs in rank 0's process. Default: keep all (1000).
    fn kept_permille(&self, on_rank_0: bool) -> u32 {
        let _ = on_rank_0;
        1000
    }
    /// Whether the records must be checked before the build reads them: a
    /// graph file each process opened without reading. Then every trustee
    /// hashes ([`slice_digests`](Self::slice_digests)) and checks
    /// ([`check_slice`](Self::check_slice)) its slice, and the builder
    /// checks the digests ([`check_digests`](Self::check_digests)) before
    /// it reports a bad record: a corrupt file is called corrupt. Default: no.
    fn checks_slices(&self) -> bool {
        false
    }
    /// Digests of the part of a checksum that starts in edges `slice`.
    fn slice_digests(&self, reader: &Self::Reader, slice: Range<u64>) -> Vec<u64> {
        let _ = (reader, slice);
        Vec::new()
    }
    /// Checks the records of edges `slice` (ids, weights).
    fn check_slice(&self, reader: &Self::Reader, slice: Range<u64>) -> Result<(), String> {
        let _ = (reader, slice);
        Ok(())
    }
    /// Says that edges `range` were read and are not needed until read
    /// again (a mapped file gives their pages back). Default: nothing.
    fn release(&self, reader: &Self::Reader, range: Range<u64>) {
        let _ = (reader, range);
    }
    /// On the builder: every trustee's digests, in trustee order (which is
    /// record order); an error if they do not add up to the source's.
    fn check_digests(&self, reader: &Self::Reader, digests: &[u64]) -> Result<(), String> {
        let _ = (reader, digests);
        Ok(())
    }
}

/// Edge records a process holds in memory or maps: an owned
/// [`EdgeList`] or a [`MappedGraph`] (a graph file on a filesystem every
/// rank sees).
pub trait EdgeRecords: Send + Sync {
    /// Vertex count.
    fn num_vertices(&self) -> u64;
    /// The records.
    fn records(&self) -> &[PackedEdge];
    /// Whether the records are arcs (see [`EdgeSource::directed`]);
    /// default undirected.
    fn directed(&self) -> bool {
        false
    }
    /// What identifies these records beyond their counts, so that ranks
    /// holding different graphs of the same size are caught (a graph
    /// file's data checksum); default 0 (nothing more).
    fn fingerprint(&self) -> u64 {
        0
    }
    /// Whether the records still need checking, slice by slice
    /// ([`EdgeSource::checks_slices`]); default no (checked on creation).
    fn needs_check(&self) -> bool {
        false
    }
    /// See [`EdgeSource::slice_digests`].
    fn slice_digests(&self, range: Range<u64>) -> Vec<u64> {
        let _ = range;
        Vec::new()
    }
    /// See [`EdgeSource::check_slice`].
    fn check_slice(&self, range: Range<u64>) -> Result<(), String> {
        let _ = range;
        Ok(())
    }
    /// See [`EdgeSource::check_digests`].
    fn check_digests(&self, digests: &[u64]) -> Result<(), String> {
        let _ = digests;
        Ok(())
    }
    /// See [`EdgeSource::release`].
    fn release(&self, range: Range<u64>) {
        let _ = range;
    }
}

impl EdgeRecords for EdgeList<'static> {
    fn num_vertices(&self) -> u64 {
        EdgeList::num_vertices(self)
    }
    fn records(&self) -> &[PackedEdge] {
        self.edges()
    }
}

impl EdgeRecords for MappedGraph {
    fn num_vertices(&self) -> u64 {
        self.header().num_vertices
    }
    fn records(&self) -> &[PackedEdge] {
        self.edges()
    }
    fn directed(&self) -> bool {
        self.meta().directed
    }
    fn fingerprint(&self) -> u64 {
        self.header().data_checksum
    }
    fn needs_check(&self) -> bool {
        !self.is_verified()
    }
    fn slice_digests(&self, range: Range<u64>) -> Vec<u64> {
        MappedGraph::slice_digests(self, range)
    }
    fn check_slice(&self, range: Range<u64>) -> Result<(), String> {
        MappedGraph::check_slice(self, range).map_err(|e| e.to_string())
    }
    fn check_digests(&self, digests: &[u64]) -> Result<(), String> {
        MappedGraph::check_digests(self, digests).map_err(|e| e.to_string())
    }
    fn release(&self, range: Range<u64>) {
        MappedGraph::release(self, range);
    }
}

/// Edges every process of the job holds itself (parsed from a text file
/// by each rank, a graph file each rank mapped, a list a test built), as an
/// [`EdgeSource`]: [`LocalSource::publish`] puts the records in a
/// per-process table, and the source travels as their number there. Each
/// trustee reads only its slice, so a mapped file is paged in piecewise
/// (and, opened with [`crate::io::file::open_in_slices`], checked piecewise).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct LocalSource {
    pub(super) id: u64,
    pub(super) vertices: u64,
    pub(super) edges: u64,
    pub(super) directed: bool,
    pub(super) fingerprint: u64,
    pub(super) needs_check: bool,
    pub(super) unit_weights: bool,
}

type Published = Vec<(u64, Arc<dyn EdgeRecords>)>;

static PUBLISHED: Mutex<Published> = Mutex::new(Vec::new());

impl LocalSource {
    /// Puts `records` in this process's table and returns their source.
    /// Every process of a rack job must publish its copy of the same
    /// graph, and the n-th graph published in one process is the n-th in
    /// every other (the CLI publishes one per run, on every rank).
    pub fn publish(records: Arc<dyn EdgeRecords>) -> LocalSource {
        let mut table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let source = LocalSource {
            id,
            vertices: records.num_vertices(),
            edges: records.records().len() as u64,
            directed: records.directed(),
            fingerprint: records.fingerprint(),
            needs_check: records.needs_check(),
            unit_weights: false,
        };
        table.push((id, records));
        source
    }

    /// The same records read as arcs (`true`) or undirected edges: for
    /// records that do not know it themselves (an [`EdgeList`] parsed from
    /// a text file, whose [`GraphMeta`](crate::GraphMeta) says).
    pub fn with_direction(self, directed: bool) -> LocalSource {
        LocalSource { directed, ..self }
    }

    /// The same records with every weight read as 1.0 (`--unit-weights`).
    pub fn with_unit_weights(self) -> LocalSource {
        LocalSource {
            unit_weights: true,
            ..self
        }
    }

    /// [`publish`](Self::publish) for an owned list.
    pub fn publish_list(list: EdgeList<'static>) -> LocalSource {
        Self::publish(Arc::new(list))
    }

    /// Drops this process's reference (after the build); later opens fail.
    pub fn withdraw(&self) {
        let mut table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        table.retain(|(id, _)| *id != self.id);
    }
}

impl EdgeSource for LocalSource {
    type Reader = Arc<dyn EdgeRecords>;

    fn num_vertices(&self) -> u64 {
        self.vertices
    }

    fn num_edges(&self) -> u64 {
        self.edges
    }

    fn open(&self) -> Result<Self::Reader, String> {
        let table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        let records = table
            .iter()
            .find(|(id, _)| *id == self.id)
            .map(|(_, l)| l.clone())
            .ok_or_else(|| {
                format!(
                    "graph {} was not published in this process (every rank must publish its copy)",
                    self.id
                )
            })?;
        let (n, m) = (records.num_vertices(), records.records().len() as u64);
        if (n, m) != (self.vertices, self.edges) {
            return Err(format!(
                "this process's graph {} has {n} vertices and {m} edges, the builder's has {} and {}: the ranks read different graphs",
                self.id, self.vertices, self.edges
            ));
        }
        if records.fingerprint() != self.fingerprint {
            return Err(format!(
                "this process's graph {} has the same size as the builder's but other records (fingerprint {:#018x}, the builder's {:#018x}): the ranks read different graph files",
                self.id,
                records.fingerprint(),
                self.fingerprint
            ));
        }
        Ok(records)
    }

    fn read(&self, reader: &Self::Reader, start: u64, out: &mut [PackedEdge]) {
        let s = start as usize;
        out.copy_from_slice(&reader.records()[s..s + out.len()]);
        if self.unit_weights {
            out.iter_mut().for_each(|e| e.w = 1.0);
        }
    }

    fn checks_slices(&self) -> bool {
        self.needs_check
    }

    fn slice_digests(&self, reader: &Self::Reader, slice: Range<u64>) -> Vec<u64> {
        reader.slice_digests(slice)
    }

    fn check_slice(&self, reader: &Self::Reader, slice: Range<u64>) -> Result<(), String> {
        reader.check_slice(slice)
    }

    fn check_digests(&self, reader: &Self::Reader, digests: &[u64]) -> Result<(), String> {
        reader.check_digests(digests)
    }

    fn release(&self, reader: &Self::Reader, range: Range<u64>) {
        reader.release(range);
    }

    fn kept_permille(&self, _: bool) -> u32 {
        0
    }

    fn directed(&self) -> bool {
        self.directed
    }
}

/// A source whose shards are built without weights ([`EdgeSource::weighted`]
/// is false; everything else is `S`'s): for the kernels that never read
/// them, which saves 4 B per adjacency entry.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Unweighted<S>(pub S);

impl<S: EdgeSource> EdgeSource for Unweighted<S> {
    type Reader = S::Reader;

    fn num_vertices(&self) -> u64 {
        self.0.num_vertices()
    }

    fn num_edges(&self) -> u64 {
        self.0.num_edges()
    }

    fn open(&self) -> Result<Self::Reader, String> {
        self.0.open()
    }

    fn read(&self, reader: &Self::Reader, start: u64, out: &mut [PackedEdge]) {
        self.0.read(reader, start, out)
    }

    fn directed(&self) -> bool {
        self.0.directed()
    }

    fn weighted(&self) -> bool {
        false
    }

    fn kept_permille(&self, on_rank_0: bool) -> u32 {
        self.0.kept_permille(on_rank_0)
    }

    fn checks_slices(&self) -> bool {
        self.0.checks_slices()
    }

    fn slice_digests(&self, reader: &Self::Reader, slice: Range<u64>) -> Vec<u64> {
        self.0.slice_digests(reader, slice)
    }

    fn check_slice(&self, reader: &Self::Reader, slice: Range<u64>) -> Result<(), String> {
        self.0.check_slice(reader, slice)
    }

    fn release(&self, reader: &Self::Reader, range: Range<u64>) {
        self.0.release(reader, range)
    }

    fn check_digests(&self, reader: &Self::Reader, digests: &[u64]) -> Result<(), String> {
        self.0.check_digests(reader, digests)
    }
}
