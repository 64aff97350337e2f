"""Fake torch.cuda.amp.GradScaler with its own step (as older torch versions had)."""
import torch.amp


class GradScaler(torch.amp.GradScaler):
    def step(self, optimizer, *args, **kwargs):
        return super().step(optimizer, *args, **kwargs)
