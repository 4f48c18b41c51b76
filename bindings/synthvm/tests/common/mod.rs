//! Shared helpers for the integration tests: run the built synthvm binary with a timeout.
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const PLANS: [&str; 8] = [
    "NoGC",
    "SemiSpace",
    "GenCopy",
    "Immix",
    "GenImmix",
    "StickyImmix",
    "MarkSweep",
    "MarkCompact",
];

pub const THREADS: [usize; 3] = [1, 8, 48];

pub struct Run {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub cmd: String,
}

impl Run {
    pub fn describe(&self) -> String {
        format!(
            "command: {}\nstatus: {:?} after {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.cmd,
            self.status,
            self.elapsed,
            self.stdout,
            // Backtraces can be long; the head says what happened.
            self.stderr.lines().take(40).collect::<Vec<_>>().join("\n")
        )
    }

    pub fn assert_passed(&self) {
        assert!(
            self.status == Some(0) && self.stdout.contains("PASSED"),
            "run did not pass\n{}",
            self.describe()
        );
    }

    /// The JSON result line.
    pub fn json_line(&self) -> Option<&str> {
        self.stdout.lines().find(|l| l.starts_with("{\"synthvm\":"))
    }
}

/// Run synthvm with `args` and extra environment, killing it after `timeout`.
pub fn synthvm_env(args: &[&str], env: &[(&str, &str)], timeout: Duration) -> Run {
    let exe = env!("CARGO_BIN_EXE_synthvm");
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Keep test runs independent of the caller's MMTk settings, and light on a 2-core box.
        .env_remove("MMTK_PLAN")
        .env_remove("MMTK_GC_TRIGGER")
        .env_remove("MMTK_STRESS_FACTOR")
        .env("MMTK_THREADS", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let desc = format!(
        "{}{} {}",
        env.iter()
            .map(|(k, v)| format!("{}={} ", k, v))
            .collect::<String>(),
        exe,
        args.join(" ")
    );
    let start = Instant::now();
    let mut child = cmd.spawn().expect("cannot spawn synthvm");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait failed") {
            break st.code();
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = t_out.join().unwrap();
            let stderr = t_err.join().unwrap();
            panic!(
                "synthvm timed out after {:?} (hang?)\ncommand: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                timeout, desc, stdout, stderr
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    Run {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
        elapsed,
        cmd: desc,
    }
}

pub fn synthvm(args: &[&str]) -> Run {
    synthvm_env(args, &[], Duration::from_secs(120))
}

/// Run `workload` (small, verified) under `plan` with 1, 8 and 48 threads.
pub fn matrix(workload: &[&str], plan: &str, heap_mib: usize) {
    matrix_threads(workload, plan, heap_mib, &THREADS)
}

/// Run `workload` (small, verified) under `plan` with each of `threads`.
pub fn matrix_threads(workload: &[&str], plan: &str, heap_mib: usize, threads: &[usize]) {
    for &t in threads {
        let heap = heap_mib.to_string();
        let threads = t.to_string();
        let mut args = vec![
            "--plan", plan, "--heap", &heap, "-t", &threads, "--size", "small", "--verify",
        ];
        args.extend_from_slice(workload);
        let r = synthvm(&args);
        r.assert_passed();
    }
}

/// Declare one #[test] per plan for a workload.
#[macro_export]
macro_rules! plan_tests {
    ($workload:expr, $heap:expr, $nogc_heap:expr) => {
        #[test]
        fn nogc() {
            common::matrix($workload, "NoGC", $nogc_heap);
        }
        #[test]
        fn semispace() {
            common::matrix($workload, "SemiSpace", $heap);
        }
        #[test]
        fn gencopy() {
            common::matrix($workload, "GenCopy", $heap);
        }
        #[test]
        fn immix() {
            common::matrix($workload, "Immix", $heap);
        }
        #[test]
        fn genimmix() {
            common::matrix($workload, "GenImmix", $heap);
        }
        #[test]
        fn stickyimmix() {
            common::matrix($workload, "StickyImmix", $heap);
        }
        #[test]
        fn marksweep() {
            common::matrix($workload, "MarkSweep", $heap);
        }
        #[test]
        fn markcompact() {
            common::matrix($workload, "MarkCompact", $heap);
        }
    };
}
