module github.com/karpenter-cloudstack/karpenter-provider-cloudstack/benchmarks

go 1.26.9
