// The spec's tutorial, as Python setup code for tests: weight, bias, mlp and x.
#pragma once

namespace tl::testing {

constexpr const char* kTutorialSetup = R"PY(
from tinygrad import Tensor
weight = Tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]])
bias = Tensor([0.0, 0.1, -0.1])
def mlp(x):
    return (x.matmul(weight) + bias).relu()
x = Tensor([[-1.0, -0.5, 0.25, 1.0], [0.5, 1.5, -2.0, 0.75]])
)PY";

}  // namespace tl::testing
