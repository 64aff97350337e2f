"""Fake torch.autograd: backward() counts its calls."""
CALLS = []


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    CALLS.append(tensors)
