//! The progress line of `dxbc2spirv batch`: elapsed time, a bar, done/total and an estimate
//! of the time left, redrawn on standard error five times a second while the batch runs.
//!
//! Small on purpose: a progress-bar crate brought in several dependencies (and, through a
//! call to `pow`, libm), all mapped and relocated by every `dxbc2spirv` process, also the
//! ones that translate a single shader.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Width of the bar in characters.
const BAR: u64 = 40;
/// Time between redraws.
const TICK: Duration = Duration::from_millis(200);

/// A counter of finished items, drawn by [`Progress::draw_until_done`] when enabled.
pub struct Progress {
    /// Whether anything is drawn (standard error is a terminal).
    enabled: bool,
    /// Items in the batch.
    total: u64,
    /// Items finished.
    done: AtomicU64,
    /// Set by [`Progress::finish`]; the drawing loop then clears the line and returns.
    finished: AtomicBool,
    /// Wakes the drawing loop early when the batch finishes.
    wake: (Mutex<()>, Condvar),
    /// When the batch began.
    start: Instant,
}

impl Progress {
    /// A progress line for `total` items, drawn only when `enabled`.
    pub fn new(total: u64, enabled: bool) -> Self {
        Progress {
            enabled,
            total,
            done: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            wake: (Mutex::new(()), Condvar::new()),
            start: Instant::now(),
        }
    }

    /// Whether the line is drawn (without it no drawing thread is needed).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Counts one finished item.
    pub fn inc(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// Ends the drawing loop (which clears the line).
    pub fn finish(&self) {
        self.finished.store(true, Ordering::Release);
        let _guard = self.wake.0.lock();
        self.wake.1.notify_all();
    }

    /// Redraws the line on `err` every tick until [`Progress::finish`], then clears it.
    /// Returns at once when drawing is disabled.
    pub fn draw_until_done(&self, err: &mut dyn Write) {
        if !self.enabled {
            return;
        }
        let mut guard = match self.wake.0.lock() {
            Ok(guard) => guard,
            Err(_) => return,
        };
        while !self.finished.load(Ordering::Acquire) {
            let _ = write!(err, "\r{}", self.line());
            let _ = err.flush();
            guard = match self.wake.1.wait_timeout(guard, TICK) {
                Ok((guard, _)) => guard,
                Err(_) => return,
            };
        }
        let _ = write!(err, "\r{:width$}\r", "", width = self.line().len());
        let _ = err.flush();
    }

    /// The text of the line: `[00:00:03] ####------ 120/800 shaders, eta 17s`.
    fn line(&self) -> String {
        let done = self.done.load(Ordering::Relaxed).min(self.total);
        let elapsed = self.start.elapsed();
        let filled = (done * BAR).checked_div(self.total).unwrap_or(BAR);
        let bar: String = (0..BAR)
            .map(|i| if i < filled { '#' } else { '-' })
            .collect();
        // Integer arithmetic: rounding a float up would call libm's `ceil`.
        let eta = (elapsed.as_millis() * u128::from(self.total - done))
            .checked_div(u128::from(done))
            .map_or_else(|| "?".to_string(), |ms| format!("{}s", ms.div_ceil(1000)));
        let secs = elapsed.as_secs();
        format!(
            "[{:02}:{:02}:{:02}] {bar} {done}/{} shaders, eta {eta}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.total
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_the_count_and_a_proportional_bar() {
        let progress = Progress::new(4, false);
        progress.inc();
        let line = progress.line();
        assert!(line.contains(" 1/4 shaders"), "{line}");
        assert!(line.contains(&format!("{}{}", "#".repeat(10), "-".repeat(30))));
        progress.inc();
        progress.inc();
        progress.inc();
        progress.inc(); // more than the total is shown as the total
        assert!(progress.line().contains(" 4/4 shaders"));
    }

    #[test]
    fn a_disabled_line_returns_at_once() {
        let progress = Progress::new(3, false);
        let mut out = Vec::new();
        progress.draw_until_done(&mut out);
        progress.finish();
        assert!(out.is_empty());
    }

    #[test]
    fn finish_stops_the_drawing_loop() {
        let progress = Progress::new(2, true);
        let mut out = Vec::new();
        std::thread::scope(|s| {
            s.spawn(|| progress.draw_until_done(&mut out));
            progress.inc();
            progress.finish();
        });
        // Whatever was drawn, the line ends cleared.
        let text = String::from_utf8(out).expect("text");
        assert!(text.is_empty() || text.ends_with('\r'), "{text:?}");
    }
}
