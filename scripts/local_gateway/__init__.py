"""``make serve``'s stand-in for API Gateway: HTTP in, REST proxy events to the functions' worker
processes, HTTP out, with the template's routes, auth mode, gateway responses and compression."""
