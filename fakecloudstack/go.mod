module github.com/karpenter-cloudstack/karpenter-provider-cloudstack/fakecloudstack

go 1.26.9
