"""LLM-as-an-Interviewer: query modification, a multi-turn interview per item, the Interview Report."""
from .config import InterviewerConfig
from .protocol import InterviewerProtocol

__all__ = ["InterviewerConfig", "InterviewerProtocol"]
