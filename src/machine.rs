//! Which machine the window shows: the real one, a tree under `--sysfs-root`, or a simulated
//! machine kept moving for as long as the window runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::{SimDir, Ticker};

#[derive(Debug)]
pub struct Machine {
    root: PathBuf,
    _ticker: Option<Ticker>,
    _temporary: Option<tempfile::TempDir>,
}

impl Machine {
    pub fn choose(sysfs_root: Option<PathBuf>, simulate: Option<&str>) -> Result<Machine, String> {
        let Some(model) = simulate else {
            return Ok(Machine {
                root: sysfs_root.unwrap_or_else(|| PathBuf::from("/")),
                _ticker: None,
                _temporary: None,
            });
        };
        let (root, temporary) = match sysfs_root {
            Some(dir) => (dir, None),
            None => {
                let dir = tempfile::Builder::new()
                    .prefix("pacer-simulated-")
                    .tempdir()
                    .map_err(|e| {
                        fill(
                            gettext("cannot make a temporary directory: {error}"),
                            &[("error", &e)],
                        )
                    })?;
                (dir.path().to_owned(), Some(dir))
            }
        };
        let dir = SimDir::open_or_create(&root, model).map_err(|e| e.to_string())?;
        // The window samples at about 10 Hz; the simulated machine moves at the same pace.
        let ticker = Ticker::start(dir, 1, Duration::from_millis(100));
        Ok(Machine {
            root,
            _ticker: Some(ticker),
            _temporary: temporary,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}
