//! The tablebase server: a JSON API over the built tables of every game
//! (the answers of `query --json`, [`crate::answer`]) and a board page.
//!
//! Probes read memory-mapped tables and may generate Omweso relay moves, so
//! they run on tokio's blocking pool, at most [`MAX_PROBES`] at a time and
//! each answered within [`PROBE_TIMEOUT`]; query strings longer than
//! [`MAX_QUERY`] bytes are refused.

mod params;
mod tables;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tokio::sync::Semaphore;

use crate::answer::{EngeheAnswer, OmwesoAnswer, OwareAnswer};
use params::Params;
use tables::Tables;

/// Probes running at once; more requests wait their turn.
pub const MAX_PROBES: usize = 64;
/// Longest a request waits for its answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest query string accepted, in bytes.
pub const MAX_QUERY: usize = 2048;
/// Longest principal variation answered.
const PV_LIMIT: usize = 100;

/// A refused request: its status and the message sent as `{"error": ...}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Body {
            error: String,
        }
        let body = Body {
            error: self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

struct AppState {
    tables: Tables,
    probes: Semaphore,
}

/// The routes, over the tablebase folder `dir`.
pub fn router(dir: PathBuf) -> Router {
    let state = Arc::new(AppState {
        tables: Tables::new(dir),
        probes: Semaphore::new(MAX_PROBES),
    });
    Router::new()
        .route("/", get(page::index))
        .route("/board.js", get(page::script))
        .route("/board.css", get(page::style))
        .route("/api/tables", get(tables_handler))
        .route("/api/oware", get(oware))
        .route("/api/oware/start", get(oware_start))
        .route("/api/omweso", get(omweso))
        .route("/api/engehe", get(engehe))
        .fallback(|| async {
            ApiError {
                status: StatusCode::NOT_FOUND,
                message: "no such page: the API is /api/oware, /api/oware/start, /api/omweso, \
                          /api/engehe and /api/tables"
                    .into(),
            }
        })
        .with_state(state)
}

/// Serves `dir` on `bind` until the process is stopped.
pub async fn serve(dir: PathBuf, bind: SocketAddr) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {bind}: {e}"))?;
    eprintln!(
        "serving the tables of {} on http://{}/",
        dir.display(),
        listener.local_addr()?
    );
    axum::serve(listener, router(dir)).await?;
    Ok(())
}

type Shared = State<Arc<AppState>>;
type Answer = Result<Response, ApiError>;

/// Runs a probe on the blocking pool under the concurrency and time limits.
async fn probe<T: Serialize + Send + 'static>(
    state: &AppState,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Answer {
    let busy = || ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        message: format!("no answer within {} s; try again", PROBE_TIMEOUT.as_secs()),
    };
    let answer = tokio::time::timeout(PROBE_TIMEOUT, async {
        let _permit = state.probes.acquire().await.map_err(|_| busy())?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| ApiError {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                message: format!("the probe failed: {e}"),
            })?
    })
    .await
    .map_err(|_| busy())??;
    Ok(Json(answer).into_response())
}

type Pairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

/// The request's parameters, refused if the query string is too long or
/// malformed.
fn params(uri: &Uri, query: Pairs) -> Result<Params, ApiError> {
    if uri.query().map_or(0, str::len) > MAX_QUERY {
        return Err(ApiError::bad_request(format!(
            "the query string is longer than {MAX_QUERY} bytes"
        )));
    }
    let Query(pairs) = query.map_err(|e| ApiError::bad_request(e.to_string()))?;
    Params::new(pairs)
}

async fn oware(State(state): Shared, uri: Uri, query: Pairs) -> Answer {
    let mut p = params(&uri, query)?;
    let rules = p.oware_rules()?;
    let board = p.oware_board()?;
    p.finish()?;
    let tables = state.tables.oware(rules)?;
    probe(&state, move || {
        OwareAnswer::probe(&tables, &board, PV_LIMIT).map_err(tables::oware_error)
    })
    .await
}

/// A start the built tables cover (`play oware`'s default): `{"description",
/// "built_layers", "pits"}`; `random=true` draws one from the largest layer.
async fn oware_start(State(state): Shared, uri: Uri, query: Pairs) -> Answer {
    let mut p = params(&uri, query)?;
    let rules = p.oware_rules()?;
    let random = p.random()?;
    p.finish()?;
    let tables = state.tables.oware(rules)?;
    probe(&state, move || {
        crate::play::start_position(&tables, random).map_err(tables::oware_error)
    })
    .await
}

async fn omweso(State(state): Shared, uri: Uri, query: Pairs) -> Answer {
    let mut p = params(&uri, query)?;
    let (config, pos) = p.omweso()?;
    p.finish()?;
    let tables = state.tables.omweso(config)?;
    probe(&state, move || {
        OmwesoAnswer::probe(&tables, &pos, PV_LIMIT).map_err(tables::omweso_error)
    })
    .await
}

async fn engehe(State(state): Shared, uri: Uri, query: Pairs) -> Answer {
    let mut p = params(&uri, query)?;
    let (config, pos) = p.engehe()?;
    p.finish()?;
    let tables = state.tables.engehe(config)?;
    probe(&state, move || {
        EngeheAnswer::probe(&tables, &pos, PV_LIMIT).map_err(tables::engehe_error)
    })
    .await
}

async fn tables_handler(State(state): Shared) -> Answer {
    let dir = state.tables.dir().to_path_buf();
    probe(&state, move || tables::catalog(&dir)).await
}

mod page {
    //! The board page: plain HTML, JS and CSS compiled into the binary.

    use axum::http::header;
    use axum::response::IntoResponse;

    pub async fn index() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            include_str!("page/index.html"),
        )
    }

    pub async fn script() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
            include_str!("page/board.js"),
        )
    }

    pub async fn style() -> impl IntoResponse {
        (
            [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
            include_str!("page/board.css"),
        )
    }
}
