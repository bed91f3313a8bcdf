//! Progress bars on stderr, shown only when stderr is a terminal (so logs,
//! pipes and tests stay quiet): each with the fraction done, the time
//! elapsed and an estimate of the time left; [`BuildWatch`] shows the
//! build of the kernels' graph step by step.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use graph_core::construct::{build_progress, BuildStep};
use indicatif::{ProgressBar, ProgressStyle};

/// The bars' layout: what, bar, percent, elapsed, estimate left.
const BAR: &str = "{msg:>21} [{bar:20}] {percent:>3}% {elapsed_precise} elapsed, ~{eta} left";

/// A progress bar, or nothing when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar of `len` steps labelled `what`.
    pub fn new(what: &str, len: u64) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        Progress(Some(bar(what, len)))
    }

    /// A bar over `total` bytes labelled `what`, moved with [`Progress::set`].
    pub fn bytes(what: &str, total: u64) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new(total);
        let style = ProgressStyle::with_template(
            "{msg:>21} [{bar:20}] {bytes}/{total_bytes} {elapsed_precise} elapsed, ~{eta} left",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    /// Moves the bar to `pos` if that is further (callers may report out of order).
    pub fn set(&self, pos: u64) {
        if let Some(b) = &self.0 {
            if pos > b.position() {
                b.set_position(pos);
            }
        }
    }

    /// A spinner for a step without a known length.
    pub fn spinner(what: &str) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed_precise} elapsed")
        {
            bar.set_style(style);
        }
        bar.set_message(what.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(bar))
    }

    /// One step done.
    pub fn tick(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        if let Some(b) = self.0 {
            b.finish_and_clear();
        }
    }
}

/// A bar of `len` steps labelled `what`, in the [`BAR`] layout.
fn bar(what: &str, len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template(BAR)
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar
}

/// Shows the build of the kernels' graph on this process as one bar per
/// step (checking the file's slices, reading or generating and counting,
/// placing the entries), from `graph_core::construct::build_progress`,
/// polled by a thread of its own; nothing when stderr is not a terminal.
pub struct BuildWatch {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BuildWatch {
    /// Starts watching a build that is about to begin; `generating` names
    /// the reading steps for a generated graph.
    pub fn start(generating: bool) -> BuildWatch {
        let stop = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return BuildWatch { stop, thread: None };
        }
        let seen = stop.clone();
        let thread = std::thread::Builder::new()
            .name("build progress".into())
            .spawn(move || watch(&seen, generating))
            .ok();
        BuildWatch { stop, thread }
    }

    /// Stops watching and removes the bars.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn watch(stop: &AtomicBool, generating: bool) {
    // Until the first step begins, a spinner.
    let mut spinner = Some(Progress::spinner("constructing"));
    let mut shown: Option<(BuildStep, ProgressBar)> = None;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let p = build_progress();
        let Some((step, done)) = p.current() else {
            continue;
        };
        if shown.as_ref().map(|(s, _)| *s) != Some(step) {
            if let Some(s) = spinner.take() {
                s.finish();
            }
            if let Some((_, old)) = shown.take() {
                old.finish_and_clear();
            }
            let what = match (step, generating) {
                (BuildStep::Checking, _) => "checking slices",
                (BuildStep::Counting, true) => "generating + counting",
                (BuildStep::Counting, false) => "reading + counting",
                (BuildStep::Placing, _) => "placing entries",
            };
            shown = Some((step, bar(what, p.total.max(1))));
        }
        if let Some((_, b)) = &shown {
            b.set_position(done.min(p.total));
        }
    }
    if let Some((_, b)) = shown {
        b.finish_and_clear();
    }
    if let Some(s) = spinner {
        s.finish();
    }
}
