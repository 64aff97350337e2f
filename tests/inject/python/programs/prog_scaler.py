"""GradScaler: a skipped step (inf grads) still has its optimizer range and its mark; a scaler step
that runs optimizer.step is one range, one mark; torch.cuda.amp imported late is hooked too."""
import progutil
import torch

model, crit, opt = progutil.make_model()
scaler = torch.amp.GradScaler()
progutil.reset()
scaler.found_inf = True
skipped = scaler.step(opt)
skipped_calls = progutil.calls()
progutil.reset()
scaler.found_inf = False
ran = scaler.step(opt)
ran_calls = progutil.calls()

import torch.cuda.amp  # noqa: E402  (a late import: the hook comes after it)

progutil.reset()
late = torch.cuda.amp.GradScaler().step(opt)
late_calls = progutil.calls()
progutil.reset()
direct = opt.step()
direct_calls = progutil.calls()
progutil.result(skipped=skipped, skipped_calls=skipped_calls, ran=ran, ran_calls=ran_calls, late=late,
                late_calls=late_calls, late_patched=bool(getattr(torch.cuda.amp.GradScaler.step,
                                                                 "__trainscope__", False)),
                direct=direct, direct_calls=direct_calls)
