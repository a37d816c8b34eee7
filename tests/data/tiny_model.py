"""A tiny model for tests/cli/ddp_export.sh: scripts/export_workload.py --module FILE:make."""
import torch
import torch.nn as nn


def make():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 10))
    return model, torch.randn(16, 64)
