//! Parameters of a Graph500 graph and their validation.

use std::fmt;

/// Largest accepted SCALE. The reference stores vertex ids in a packed 48-bit
/// field, so graphs beyond `2^48` vertices are not Graph500 graphs.
pub const MAX_SCALE: u32 = 48;

/// Parameters of a Graph500 Kronecker graph: `2^scale` vertices and
/// `edgefactor * 2^scale` edges, drawn from the stream fixed by two seeds.
///
/// The default is the Graph500 reference setting: edgefactor 16 and seeds
/// 2 and 3 (the reference fixes them in its main program), at SCALE 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Graph500Config {
    /// log2 of the number of vertices, `1..=MAX_SCALE`.
    pub scale: u32,
    /// Edges per vertex (the reference's default is 16), at least 1.
    pub edgefactor: u32,
    /// First user seed.
    pub seed1: u64,
    /// Second user seed.
    pub seed2: u64,
}

impl Default for Graph500Config {
    fn default() -> Self {
        Graph500Config {
            scale: 16,
            edgefactor: 16,
            seed1: 2,
            seed2: 3,
        }
    }
}

impl Graph500Config {
    /// The reference setting (edgefactor 16, seeds 2 and 3) at `scale`.
    pub fn with_scale(scale: u32) -> Self {
        Graph500Config {
            scale,
            ..Default::default()
        }
    }

    /// Checks the parameters; [`crate::Kronecker::new`] calls this.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_SCALE).contains(&self.scale) {
            return Err(ConfigError::ScaleOutOfRange { scale: self.scale });
        }
        if self.edgefactor == 0 {
            return Err(ConfigError::ZeroEdgefactor);
        }
        // scale <= 48 and edgefactor < 2^32 keep the edge count below 2^80;
        // the reference indexes edges with an i64.
        let edges = (self.edgefactor as u128) << self.scale;
        if edges > i64::MAX as u128 {
            return Err(ConfigError::TooManyEdges {
                scale: self.scale,
                edgefactor: self.edgefactor,
            });
        }
        Ok(())
    }
}

/// Why a [`Graph500Config`] was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// `scale` was 0 or above [`MAX_SCALE`].
    ScaleOutOfRange {
        /// The rejected value.
        scale: u32,
    },
    /// `edgefactor` was 0.
    ZeroEdgefactor,
    /// `edgefactor * 2^scale` does not fit in a signed 64-bit edge index.
    TooManyEdges {
        /// The requested scale.
        scale: u32,
        /// The requested edgefactor.
        edgefactor: u32,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::ScaleOutOfRange { scale } => write!(
                f,
                "scale {scale} is out of range: use 1..={MAX_SCALE} (the graph has 2^scale vertices)"
            ),
            ConfigError::ZeroEdgefactor => write!(
                f,
                "edgefactor 0 gives a graph without edges: use at least 1 (Graph500 uses 16)"
            ),
            ConfigError::TooManyEdges { scale, edgefactor } => write!(
                f,
                "edgefactor {edgefactor} at scale {scale} gives more than 2^63 - 1 edges: \
                 lower the scale or the edgefactor"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_reference_setting() {
        let c = Graph500Config::default();
        assert_eq!((c.edgefactor, c.seed1, c.seed2), (16, 2, 3));
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(Graph500Config::with_scale(10).scale, 10);
    }

    #[test]
    fn rejects_bad_parameters_with_clear_messages() {
        let e = Graph500Config::with_scale(0).validate().unwrap_err();
        assert_eq!(e, ConfigError::ScaleOutOfRange { scale: 0 });
        assert!(e.to_string().contains("1..=48"), "{e}");
        let e = Graph500Config::with_scale(49).validate().unwrap_err();
        assert_eq!(e, ConfigError::ScaleOutOfRange { scale: 49 });
        let c = Graph500Config {
            edgefactor: 0,
            ..Default::default()
        };
        assert_eq!(c.validate(), Err(ConfigError::ZeroEdgefactor));
        assert!(ConfigError::ZeroEdgefactor
            .to_string()
            .contains("at least 1"));
        let c = Graph500Config {
            scale: 48,
            edgefactor: 1 << 15,
            ..Default::default()
        };
        assert!(matches!(
            c.validate(),
            Err(ConfigError::TooManyEdges { .. })
        ));
        let c = Graph500Config {
            scale: 48,
            edgefactor: (1 << 15) - 1,
            ..Default::default()
        };
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(Graph500Config::with_scale(1).validate(), Ok(()));
    }
}
