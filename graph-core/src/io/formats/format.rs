//! Which format an input is in ([`Format`]) and how to read it
//! ([`ReadOptions`]).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// An input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Text edge list, `src dst` per line.
    El,
    /// Weighted text edge list, `src dst weight` per line.
    Wel,
    /// Matrix Market coordinate format.
    Mtx,
    /// DIMACS shortest-path challenge format.
    Gr,
    /// GAPBS serialized graph.
    Sg,
    /// GAPBS serialized weighted graph.
    Wsg,
}

/// Every format, in the order the help lists them.
pub const ALL_FORMATS: [Format; 6] = [
    Format::El,
    Format::Wel,
    Format::Mtx,
    Format::Gr,
    Format::Sg,
    Format::Wsg,
];

impl Format {
    /// The format's name, which is also its file extension.
    pub fn name(self) -> &'static str {
        match self {
            Format::El => "el",
            Format::Wel => "wel",
            Format::Mtx => "mtx",
            Format::Gr => "gr",
            Format::Sg => "sg",
            Format::Wsg => "wsg",
        }
    }

    /// The format a path's extension names, if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        ext.parse().ok()
    }

    /// True for the 1-based text formats.
    pub(super) fn base(self) -> u64 {
        match self {
            Format::Mtx | Format::Gr => 1,
            _ => 0,
        }
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ALL_FORMATS
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown graph format '{s}': use one of el, wel, mtx, gr, sg, wsg")
            })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read an input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// `Some(true)`: directed; `Some(false)`: undirected (a directed input
    /// is symmetrized); `None`: the format's default (directed, unless the
    /// file says undirected). A file that declares itself undirected (a
    /// symmetric Matrix Market file, an undirected `.sg`) stays undirected.
    pub directed: Option<bool>,
    /// Read the weights' column as absent: the graph is unweighted (for
    /// inputs with negative or meaningless values).
    pub ignore_weights: bool,
}

impl ReadOptions {
    /// Undirected, weights as in the file.
    pub fn undirected() -> Self {
        ReadOptions {
            directed: Some(false),
            ignore_weights: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_come_from_extensions_and_names() {
        assert_eq!(Format::from_path(Path::new("a/b.WEL")), Some(Format::Wel));
        assert_eq!(Format::from_path(Path::new("roadNet-CA.txt")), None);
        assert_eq!("wsg".parse::<Format>(), Ok(Format::Wsg));
        assert!("csv"
            .parse::<Format>()
            .unwrap_err()
            .contains("el, wel, mtx, gr, sg, wsg"));
    }
}
