('cuda_compute_capabilities', ['sm_52', 'sm_6
('cuda_version', 12.1), ('cudnn_version', '64_'), {'cuda_version': '64_101