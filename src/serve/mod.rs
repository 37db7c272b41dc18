//! `darkhex serve`: the browser interface. A local web server (axum on
//! tokio) whose pages, scripts and styles are the files of `web/`,
//! embedded in the binary ([`assets`]), over a JSON API ([`api`]) that
//! calls the same library functions as the other commands: the server
//! holds no game logic. It reads files only under the folders named on its
//! command line ([`roots`]), runs long work off the request threads with
//! progress and cancellation ([`jobs`]), and answers a bad request with an
//! error the page shows, never a panic.

mod api;
mod assets;
mod hex;
mod jobs;
mod league;
mod play;
mod policy;
mod roots;
mod runs;
mod sessions;
mod view;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::help;
use crate::interrupt;
use crate::outputs::Files;

pub use roots::Roots;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex serve                                   (play in the browser at http://127.0.0.1:8080)",
    "darkhex serve policies league-dh33 --open       (open policies, leagues and runs under these folders)",
    "darkhex serve runs --port 9000",
], &[]))]
pub struct ServeArgs {
    /// Folders whose files the pages may open (policies, models, PONE
    /// strategies, leagues, training runs); nothing outside them is read
    #[arg(value_name = "FOLDER")]
    folders: Vec<PathBuf>,
    /// Port to listen on (0: any free port, said when listening)
    #[arg(long, default_value_t = 8080, allow_negative_numbers = true, value_parser = crate::args::whole::<u16>(0, Some(65535)))]
    port: u16,
    /// Address to listen on; anything but 127.0.0.1 lets other machines in
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// Open the interface in the default browser once listening
    #[arg(long)]
    open: bool,
}

/// What `serve` reads, for the output guard: it writes nothing.
pub fn files(args: &ServeArgs) -> Files {
    args.folders
        .iter()
        .fold(Files::new(), |f, dir| f.reads("the folder", Some(dir)))
}

pub fn run(args: ServeArgs) -> Result<()> {
    let roots = Roots::new(&args.folders)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server's threads")?;
    runtime.block_on(serve(args, roots))
}

async fn serve(args: ServeArgs, roots: Roots) -> Result<()> {
    let address = SocketAddr::new(args.bind, args.port);
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => bail!(
            "cannot listen on {address}: the port is in use (another darkhex serve?); give another with --port N"
        ),
        Err(e) => bail!("cannot listen on {address}: {e}"),
    };
    // `--port 0` asks the system for a free port: say which.
    let address = listener.local_addr().unwrap_or(address);
    let url = format!("http://{address}/");
    eprintln!("darkhex serve: listening on {url} (Ctrl-C stops)");
    for line in roots.describe() {
        eprintln!("  {line}");
    }
    if args.open {
        open_browser(&url);
    }
    let state = api::AppState::new(roots, args.bind.is_loopback());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stop_tx = std::sync::Mutex::new(Some(stop_tx));
    let shutdown = state.shared().shutdown.clone();
    interrupt::on_interrupt(move || {
        // Jobs under way stop at their next step, which ends their streams.
        shutdown.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(tx) = stop_tx.lock().ok().and_then(|mut t| t.take()) {
            let _ = tx.send(());
        }
    });
    let app = api::router(state);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = stop_rx.await;
        })
        .await
        .context("serving")?;
    // Only a signal ends the server: its status is an interruption's, as
    // for every command.
    Err(interrupt::Interrupted(
        "the server stopped; the games in its pages and any work under way are gone".into(),
    )
    .into())
}

/// Opens `url` in the desktop's browser; says how to open it by hand when
/// none answers.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if spawned.is_err() {
        eprintln!("darkhex serve: could not run {opener}: open {url} in a browser");
    }
}
