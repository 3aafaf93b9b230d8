import torch


def launch(x:
    return x
