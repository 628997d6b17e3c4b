//! The progress bar of `dxbc2spirv batch` (indicatif): elapsed time, a bar, done/total and an
//! estimate of the time left, on standard error when it is a terminal, nothing otherwise.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The bar's layout.
const TEMPLATE: &str = "{elapsed_precise} [{bar:40}] {pos}/{len} (about {eta} left)";

/// A counter of finished shaders, drawn while the batch runs when standard error is a
/// terminal. Shared by the worker threads.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `total` shaders, drawn only when `enabled`.
    pub fn new(total: u64, enabled: bool) -> Self {
        let target = if enabled {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
            bar.set_style(style.progress_chars("=> "));
        }
        if enabled {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        Progress { bar }
    }

    /// Counts one finished shader.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Clears the bar (the summary follows).
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// Shaders counted so far.
    #[cfg(test)]
    fn position(&self) -> u64 {
        self.bar.position()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_finished_shaders_from_every_thread() {
        let progress = Progress::new(8, false);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    progress.inc();
                    progress.inc();
                });
            }
        });
        assert_eq!(progress.position(), 8);
        progress.finish();
    }

    #[test]
    fn the_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }
}
